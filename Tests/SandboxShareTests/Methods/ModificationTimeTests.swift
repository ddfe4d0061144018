import Foundation
import Glibc
import SandboxTesting
import Testing

/// The uploader's modification time is kept: a PUT's `X-OC-Mtime` (ownCloud's header, sent by
/// rclone's `webdav` backend with `vendor=owncloud`, the Nextcloud clients and the share's page)
/// and a PROPPATCH of `DAV:lastmodified` or `DAV:getlastmodified`, through the real server.
@Suite struct ModificationTimeTests {
    /// `Documents/relative`'s modification time in nanoseconds since the epoch, `nil` when absent.
    static func mtime(_ server: ShareServerProcess, _ relative: String) -> Int128? {
        var status = stat()
        guard stat(server.documents(relative), &status) == 0 else { return nil }
        return Int128(status.st_mtim.tv_sec) * 1_000_000_000 + Int128(status.st_mtim.tv_nsec)
    }

    static func proppatch(_ properties: String) -> String {
        """
        <?xml version="1.0" encoding="utf-8" ?>
        <D:propertyupdate xmlns:D="DAV:" xmlns:Z="urn:example"><D:set><D:prop>\(properties)</D:prop></D:set>\
        </D:propertyupdate>
        """
    }

    @Test func aPutWithXOCMtimeKeepsThatTimeToTheNanosecond() async throws {
        try await ShareServerProcess.with { server in
            let created = try await server.send(
                "PUT", "/new.txt", headers: [("X-OC-Mtime", "1700000000")], body: Array("new".utf8))
            #expect(created.status == 201, "\(created)")
            #expect(created.header("X-OC-Mtime") == "accepted", "\(created)")
            #expect(Self.mtime(server, "new.txt") == 1_700_000_000_000_000_000)

            try server.plant("old.txt", "old")
            let replaced = try await server.send(
                "PUT", "/old.txt", headers: [("X-OC-Mtime", "1234567890.123456789")], body: Array("replaced".utf8))
            #expect(replaced.status == 204, "\(replaced)")
            #expect(replaced.header("X-OC-Mtime") == "accepted")
            #expect(Self.mtime(server, "old.txt") == 1_234_567_890_123_456_789)
            #expect(server.contents("old.txt") == "replaced")

            let propfind = try await server.send(
                "PROPFIND", "/old.txt", headers: [("Depth", "0")],
                text: #"<D:propfind xmlns:D="DAV:"><D:prop><D:getlastmodified/></D:prop></D:propfind>"#)
            #expect(propfind.text.contains("Fri, 13 Feb 2009 23:31:30 GMT"), "\(propfind)")

            let without = try await server.send("PUT", "/plain.txt", body: Array("plain".utf8))
            #expect(without.status == 201 && without.header("X-OC-Mtime") == nil, "\(without)")
            let now = Int128(Date().timeIntervalSince1970) * 1_000_000_000
            #expect(
                abs((Self.mtime(server, "plain.txt") ?? 0) - now) < 600 * 1_000_000_000,
                "no header: the time of the write")
        }
    }

    @Test(.enabled(if: ExternalTool.available("curl")))
    func curlSendingTheHeaderSeesItAccepted() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-mtime") { scratch in
                let file = scratch.appending("report.pdf")
                try Data(repeating: 7, count: 100_000).write(to: URL(fileURLWithPath: file))
                let output = try await ExternalTool.run(
                    "curl",
                    [
                        "-sS", "-D", "-", "-o", "/dev/null", "-u", "sandbox:\(server.code)", "-T", file,
                        "-H", "X-OC-Mtime: 1577836800", server.url("/report.pdf"),
                    ], outputIn: scratch.path)
                #expect(output.exit == .exited(0), "curl: \(output.stderr)")
                #expect(output.stdout.contains("201 Created"), "\(output.stdout)")
                #expect(output.stdout.lowercased().contains("x-oc-mtime: accepted"), "\(output.stdout)")
                #expect(Self.mtime(server, "report.pdf") == 1_577_836_800_000_000_000)
            }
        }
    }

    /// Negative, past year 9999, too fine, not a number, several: 400 before any of the body is
    /// stored, and the file already at the name keeps its bytes and its time.
    @Test func aValueThatIsNotATimeIsRefusedAndNothingIsStored() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("kept.txt", "kept")
            let kept = try #require(Self.mtime(server, "kept.txt"))
            let hostile = [
                "-1", "-0", "+5", "253402300800", "99999999999999999999999", "1.5e9", "1e9", "0x10", "1700000000.",
                ".5", "1700000000.1234567891", "1700000000,5", " 1700000000 1", "abc", "", "１７", "1_700", "NaN",
                "1700000000, 1700000001",
            ]
            for value in hostile {
                for target in ["/kept.txt", "/fresh.txt"] {
                    let response = try await server.send(
                        "PUT", target, headers: [("X-OC-Mtime", value)], body: Array("hostile".utf8))
                    #expect(response.status == 400, "X-OC-Mtime '\(value)' on \(target): \(response)")
                    #expect(response.header("X-OC-Mtime") == nil)
                }
            }
            let twice = try await server.send(
                "PUT", "/kept.txt", headers: [("X-OC-Mtime", "1700000000"), ("X-OC-Mtime", "1700000000")],
                body: Array("twice".utf8))
            #expect(twice.status == 400 && twice.text.contains("X-OC-Mtime"), "\(twice)")
            #expect(server.contents("kept.txt") == "kept")
            #expect(Self.mtime(server, "kept.txt") == kept)
            #expect(server.contents("fresh.txt") == nil)

            // The edges that are times: the epoch, leading zeros, the last second of year 9999
            // (which a file system may clamp to the latest it holds: ext4 to 2446).
            for (value, expected) in [("0", Int128(0)), ("0001.5", 1_500_000_000)] {
                let response = try await server.send(
                    "PUT", "/edge.txt", headers: [("X-OC-Mtime", value)], body: Array("edge".utf8))
                #expect((200..<300).contains(response.status), "X-OC-Mtime '\(value)': \(response)")
                #expect(Self.mtime(server, "edge.txt") == expected, "X-OC-Mtime '\(value)'")
            }
            let latest = try await server.send(
                "PUT", "/edge.txt", headers: [("X-OC-Mtime", "253402300799")], body: Array("edge".utf8))
            #expect(latest.status == 204 && latest.header("X-OC-Mtime") == "accepted", "\(latest)")
            #expect((Self.mtime(server, "edge.txt") ?? 0) > 2_000_000_000 * 1_000_000_000)
        }
    }

    /// A PUT the container's policy refuses (the Inbox) sets no time anywhere; an upload refused
    /// for another reason (a lock, a precondition) neither.
    @Test func aRefusedPutSetsNoTime() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("Inbox/mail.eml", "delivered")
            let inbox = try #require(Self.mtime(server, "Inbox/mail.eml"))
            let response = try await server.send(
                "PUT", "/Inbox/mail.eml", headers: [("X-OC-Mtime", "1000")], body: Array("x".utf8))
            #expect(response.status == 404, "\(response)")
            #expect(Self.mtime(server, "Inbox/mail.eml") == inbox)

            try server.plant("guarded.txt", "guarded")
            let guarded = try #require(Self.mtime(server, "guarded.txt"))
            let refused = try await server.send(
                "PUT", "/guarded.txt", headers: [("X-OC-Mtime", "1000"), ("If-Match", "\"not-its-tag\"")],
                body: Array("x".utf8))
            #expect(refused.status == 412, "\(refused)")
            #expect(Self.mtime(server, "guarded.txt") == guarded && server.contents("guarded.txt") == "guarded")
        }
    }

    @Test func proppatchOfLastModifiedSetsTheTimeAndFailsAllOrNothing() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("a.txt", "a")
            // rclone's body (backend/webdav, vendor owncloud/nextcloud), byte for byte in substance.
            let rclone = try await server.send(
                "PROPPATCH", "/a.txt", text: Self.proppatch(#"<lastmodified xmlns="DAV:">1600000000</lastmodified>"#))
            #expect(rclone.status == 207 && rclone.text.contains("200 OK"), "\(rclone)")
            #expect(!rclone.text.contains("403"), "\(rclone)")
            #expect(Self.mtime(server, "a.txt") == 1_600_000_000_000_000_000)

            let http = try await server.send(
                "PROPPATCH", "/a.txt",
                text: Self.proppatch("<D:getlastmodified>Sun, 06 Nov 1994 08:49:37 GMT</D:getlastmodified>"))
            #expect(http.status == 207 && http.text.contains("200 OK"), "\(http)")
            #expect(Self.mtime(server, "a.txt") == 784_111_777_000_000_000)

            // A value that is not a time: 409 for it, 424 for the rest, and nothing changed.
            for bad in [
                "<D:lastmodified>-5</D:lastmodified>", "<D:lastmodified>253402300800</D:lastmodified>",
                "<D:lastmodified>soon</D:lastmodified>", "<D:getlastmodified>1600000000</D:getlastmodified>",
                "<D:getlastmodified>Fri, 01 Jan 10000 00:00:00 GMT</D:getlastmodified>",
                "<D:lastmodified><D:x>1</D:x></D:lastmodified>",
            ] {
                let response = try await server.send(
                    "PROPPATCH", "/a.txt", text: Self.proppatch("<Z:colour>blue</Z:colour>" + bad))
                #expect(response.status == 207 && response.text.contains("409"), "\(bad): \(response)")
                #expect(response.text.contains("424"), "\(bad): \(response)")
                #expect(Self.mtime(server, "a.txt") == 784_111_777_000_000_000, "\(bad)")
            }
            // A time set before an operation that fails is put back.
            let undone = try await server.send(
                "PROPPATCH", "/a.txt",
                text: Self.proppatch(
                    "<D:lastmodified>1600000000</D:lastmodified><D:getlastmodified>never</D:getlastmodified>"))
            #expect(undone.text.contains("409") && undone.text.contains("424"), "\(undone)")
            #expect(Self.mtime(server, "a.txt") == 784_111_777_000_000_000, "the time set first was undone")
            let propfind = try await server.send(
                "PROPFIND", "/a.txt", headers: [("Depth", "0")],
                text: #"<D:propfind xmlns:D="DAV:"><D:prop><Z:colour xmlns:Z="urn:example"/></D:prop></D:propfind>"#)
            #expect(propfind.text.contains("404"), "no dead property was left behind: \(propfind)")

            // Removing the time is refused as for any live property; the other live ones stay protected.
            let remove = try await server.send(
                "PROPPATCH", "/a.txt",
                text:
                    #"<D:propertyupdate xmlns:D="DAV:"><D:remove><D:prop><D:getlastmodified/></D:prop></D:remove></D:propertyupdate>"#
            )
            #expect(remove.status == 207 && remove.text.contains("403"), "\(remove)")
            let etag = try await server.send(
                "PROPPATCH", "/a.txt", text: Self.proppatch("<D:getetag>\"x\"</D:getetag>"))
            #expect(etag.text.contains("cannot-modify-protected-property"), "\(etag)")
            #expect(Self.mtime(server, "a.txt") == 784_111_777_000_000_000)

            // The policy holds: the Inbox's items are not file sharing's to change.
            try server.plant("Inbox/mail.eml", "delivered")
            let inbox = try #require(Self.mtime(server, "Inbox/mail.eml"))
            let refused = try await server.send(
                "PROPPATCH", "/Inbox/mail.eml", text: Self.proppatch("<D:lastmodified>1000</D:lastmodified>"))
            #expect(refused.status == 404, "\(refused)")
            #expect(Self.mtime(server, "Inbox/mail.eml") == inbox)
        }
    }

    /// rclone's `webdav` backend as ownCloud's client (`vendor=owncloud`: `X-OC-Mtime` on each
    /// PUT): the files on the share have the source's times, `rclone lsl` lists them as the
    /// source's, and a second `copy` has nothing to send. (Debian's rclone 1.60 cannot set a time
    /// alone; newer ones PROPPATCH `DAV:lastmodified`, whose body the PROPPATCH test sends.)
    @Test(.enabled(if: ExternalTool.available("rclone")), .timeLimit(.minutes(3)))
    func rcloneKeepsTheSourceTimes() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-rclone-mtime") { scratch in
                let source = scratch.appending("source")
                let files = try FileTree.make(at: source, count: 40)
                for (index, file) in files.enumerated() {
                    let seconds = 1_500_000_000 + index * 86_413
                    var times = [timespec(tv_sec: seconds, tv_nsec: 0), timespec(tv_sec: seconds, tv_nsec: 0)]
                    #expect(utimensat(AT_FDCWD, source + "/" + file, &times, 0) == 0)
                }
                let obscured = try await ExternalTool.run(
                    "rclone", ["obscure", server.code], environment: ["HOME": scratch.path], outputIn: scratch.path)
                let remote =
                    ":webdav,url='\(server.url)',vendor=owncloud,user=sandbox,pass="
                    + obscured.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + ":up"
                func rclone(_ arguments: [String]) async throws -> ProgramOutput {
                    let output = try await ExternalTool.run(
                        "rclone", arguments + ["--config", scratch.appending("rclone.conf")],
                        environment: ["HOME": scratch.path, "TZ": "UTC"], outputIn: scratch.path,
                        timeout: .seconds(120))
                    #expect(
                        output.exit == .exited(0),
                        "rclone \(arguments.first ?? ""): \(output.stderr.suffix(3000))\nserver: \(server.log().suffix(2000))"
                    )
                    return output
                }
                _ = try await rclone(["copy", source, remote])
                for (index, file) in files.enumerated() {
                    let expected = Int128(1_500_000_000 + index * 86_413) * 1_000_000_000
                    #expect(Self.mtime(server, "up/" + file) == expected, "\(file) on disk")
                }
                let check = try await rclone(["check", source, remote])
                #expect(check.stderr.contains("0 differences found"), "rclone check: \(check.stderr.suffix(2000))")
                let local = try await rclone(["lsl", source])
                let shared = try await rclone(["lsl", remote])
                func lines(_ output: ProgramOutput) -> [String] {
                    output.stdout.split(separator: "\n").map(String.init).sorted()
                }
                #expect(lines(shared).count == files.count)
                #expect(lines(shared) == lines(local), "rclone lsl: the share lists the source's times")
                let again = try await rclone(["copy", source, remote, "-v", "--stats-one-line"])
                #expect(
                    !again.stderr.contains("Copied"), "a second copy sends nothing: \(again.stderr.suffix(2000))")

                print(
                    "rclone (vendor=owncloud): \(files.count) files, their times kept through copy, check and lsl")
            }
        }
    }
}
