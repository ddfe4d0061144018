import Foundation
import Glibc
import SandboxTesting
import Testing

/// Content checksums (ownCloud's `OC-Checksum` and `oc:checksums`) through the real server, with
/// real clients: what a PUT sends is verified, what it stored is served, what the app rewrote is
/// never served stale.
@Suite struct ChecksumTests {
    static let propfindChecksums = """
        <?xml version="1.0"?><d:propfind xmlns:d="DAV:" xmlns:oc="http://owncloud.org/ns">\
        <d:prop><d:getcontentlength/><oc:checksums/></d:prop></d:propfind>
        """

    /// `sha1sum`/`md5sum` of `text`, as the oracle: the system's tools, not the server's code.
    static func digest(_ tool: String, of text: String, in scratch: String) async throws -> String {
        try await digest(tool, of: Array(text.utf8), in: scratch)
    }

    static func digest(_ tool: String, of bytes: [UInt8], in scratch: String) async throws -> String {
        let file = scratch + "/digest-input"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let output = try await ExternalTool.run(tool, [file], outputIn: scratch)
        return String(output.stdout.prefix { $0 != " " })
    }

    /// The `oc:checksum` text a PROPFIND gives for `target`, `nil` when the property is missing.
    static func propertyChecksums(_ server: ShareServerProcess, _ target: String) async throws -> String? {
        let response = try await server.send(
            "PROPFIND", target, headers: [("Depth", "0")], text: propfindChecksums)
        guard response.status == 207,
            let start = response.text.range(of: "<checksum xmlns=\"http://owncloud.org/ns\">"),
            let end = response.text.range(of: "</checksum>", range: start.upperBound..<response.text.endIndex)
        else { return nil }
        return String(response.text[start.upperBound..<end.lowerBound])
    }

    @Test(.enabled(if: ExternalTool.available("sha1sum", "md5sum")))
    func anUploadKeepsItsChecksumsAndAWrongOneIsRefusedWithTheOldFileIntact() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-checksum") { scratch in
                let text = "the uploaded bytes\n"
                let sha1 = try await Self.digest("sha1sum", of: text, in: scratch.path)
                let md5 = try await Self.digest("md5sum", of: text, in: scratch.path)

                let created = try await server.send(
                    "PUT", "/a.txt", headers: [("OC-Checksum", "SHA1:\(sha1.uppercased())")], body: Array(text.utf8))
                #expect(created.status == 201, "\(created)")
                let head = try await server.send("HEAD", "/a.txt")
                #expect(head.header("OC-Checksum") == "SHA1:\(sha1)", "\(head)")
                let get = try await server.send("GET", "/a.txt")
                #expect(get.header("OC-Checksum") == "SHA1:\(sha1)" && get.text == text, "\(get)")
                #expect(try await Self.propertyChecksums(server, "/a.txt") == "SHA1:\(sha1) MD5:\(md5)")

                // A body that is not what the client hashed: 400, the file as it was, its checksums too.
                var before = stat()
                _ = stat(server.documents("a.txt"), &before)
                for header in ["SHA1:\(String(repeating: "0", count: 40))", "MD5:\(String(repeating: "f", count: 32))"]
                {
                    let refused = try await server.send(
                        "PUT", "/a.txt", headers: [("OC-Checksum", header)], body: Array("damaged on the way\n".utf8))
                    #expect(refused.status == 400 && refused.text.contains("OC-Checksum"), "\(header): \(refused)")
                    let refusedNew = try await server.send(
                        "PUT", "/new.txt", headers: [("OC-Checksum", header)], body: Array("damaged\n".utf8))
                    #expect(refusedNew.status == 400, "\(refusedNew)")
                }
                for malformed in ["SHA1:xyz", "MD5:\(sha1)", "SHA1:\(sha1) SHA1:\(String(repeating: "1", count: 40))"] {
                    let refused = try await server.send(
                        "PUT", "/a.txt", headers: [("OC-Checksum", malformed)], body: Array("other\n".utf8))
                    #expect(refused.status == 400, "\(malformed): \(refused)")
                }
                var after = stat()
                _ = stat(server.documents("a.txt"), &after)
                #expect(server.contents("a.txt") == text && server.contents("new.txt") == nil)
                #expect(after.st_ino == before.st_ino && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
                #expect(try await Self.propertyChecksums(server, "/a.txt") == "SHA1:\(sha1) MD5:\(md5)")

                // The right MD5, and a type the share does not compute (ignored): stored.
                let replaced = try await server.send(
                    "PUT", "/a.txt", headers: [("OC-Checksum", "ADLER32:0badc0de MD5:\(md5)")], body: Array(text.utf8))
                #expect(replaced.status == 204, "\(replaced)")

                // A body of several batches (hashed off the receiving task, 1 MiB at a time).
                var state: UInt32 = 7
                let large = (0..<(3 << 20) + 12_345).map { _ in
                    state = state &* 1_103_515_245 &+ 12_345
                    return UInt8(truncatingIfNeeded: state >> 16)
                }
                let largeSHA1 = try await Self.digest("sha1sum", of: large, in: scratch.path)
                let largeMD5 = try await Self.digest("md5sum", of: large, in: scratch.path)
                var corrupted = large
                corrupted[2 << 20] ^= 1
                let damaged = try await server.send(
                    "PUT", "/large.bin", headers: [("OC-Checksum", "SHA1:\(largeSHA1)")], body: corrupted)
                #expect(damaged.status == 400 && server.contents("large.bin") == nil, "\(damaged)")
                let whole = try await server.send(
                    "PUT", "/large.bin", headers: [("OC-Checksum", "MD5:\(largeMD5)")], body: large)
                #expect(whole.status == 201, "\(whole)")
                #expect(try await Self.propertyChecksums(server, "/large.bin") == "SHA1:\(largeSHA1) MD5:\(largeMD5)")

                // The checksums are not a dead property a client may set.
                let patch = try await server.send(
                    "PROPPATCH", "/a.txt",
                    text: """
                        <D:propertyupdate xmlns:D="DAV:" xmlns:oc="http://owncloud.org/ns"><D:set><D:prop>\
                        <oc:checksums><oc:checksum>SHA1:\(String(repeating: "0", count: 40))</oc:checksum></oc:checksums>\
                        </D:prop></D:set></D:propertyupdate>
                        """)
                #expect(patch.status == 207 && patch.text.contains("403"), "\(patch)")
                #expect(try await Self.propertyChecksums(server, "/a.txt") == "SHA1:\(sha1) MD5:\(md5)")
            }
        }
    }

    /// A file the app wrote has none until a PROPFIND asks (then hashed once and kept); the app
    /// rewriting it makes the old ones disappear from GET and PROPFIND alike; a file over the
    /// request's budget and a symlink get none.
    @Test(.enabled(if: ExternalTool.available("sha1sum", "md5sum")))
    func theAppsOwnWritesAreHashedOnDemandAndNeverServedStale() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-checksum") { scratch in
                try server.plant("app.txt", "written by the app\n")
                let first = try await server.send("GET", "/app.txt")
                #expect(first.status == 200 && first.header("OC-Checksum") == nil, "a GET never hashes: \(first)")
                let sha1 = try await Self.digest("sha1sum", of: "written by the app\n", in: scratch.path)
                let md5 = try await Self.digest("md5sum", of: "written by the app\n", in: scratch.path)
                #expect(try await Self.propertyChecksums(server, "/app.txt") == "SHA1:\(sha1) MD5:\(md5)")
                let kept = try await server.send("HEAD", "/app.txt")
                #expect(kept.header("OC-Checksum") == "SHA1:\(sha1)", "computed once, then kept: \(kept)")

                // The app rewrites it in place, same size: the stored checksums are stale.
                let rewritten = "rewritten by app!!\n"
                #expect(rewritten.utf8.count == "written by the app\n".utf8.count)
                var original = stat()
                _ = stat(server.documents("app.txt"), &original)
                let moved = try await eventually(timeout: .seconds(5)) {
                    // A new modification time needs the clock to move past the old one's tick.
                    try server.plant("app.txt", rewritten)
                    var now = stat()
                    _ = stat(server.documents("app.txt"), &now)
                    return now.st_mtim.tv_sec != original.st_mtim.tv_sec
                        || now.st_mtim.tv_nsec != original.st_mtim.tv_nsec
                }
                #expect(moved)
                let stale = try await server.send("HEAD", "/app.txt")
                #expect(stale.status == 200 && stale.header("OC-Checksum") == nil, "the old ones are gone: \(stale)")
                let newSHA1 = try await Self.digest("sha1sum", of: rewritten, in: scratch.path)
                let newMD5 = try await Self.digest("md5sum", of: rewritten, in: scratch.path)
                #expect(try await Self.propertyChecksums(server, "/app.txt") == "SHA1:\(newSHA1) MD5:\(newMD5)")

                // A 2 GiB (sparse) file is over one request's budget: no checksums, at once.
                let huge = server.documents("huge.bin")
                #expect(FileManager.default.createFile(atPath: huge, contents: nil))
                #expect(truncate(huge, 2 << 30) == 0)
                let started = ContinuousClock.now
                let listing = try await server.send(
                    "PROPFIND", "/huge.bin", headers: [("Depth", "0")], text: Self.propfindChecksums)
                #expect(listing.status == 207 && !listing.text.contains("SHA1:"), "\(listing)")
                #expect(listing.text.contains("404"), "the property missing: \(listing)")
                #expect(ContinuousClock.now - started < .seconds(5), "not read: \(ContinuousClock.now - started)")

                // A symlink is never followed: not listed, not hashed.
                #expect(symlink("/etc/hostname", server.documents("link.txt")) == 0)
                let folder = try await server.send(
                    "PROPFIND", "/", headers: [("Depth", "1")], text: Self.propfindChecksums)
                #expect(folder.status == 207 && !folder.text.contains("link.txt"), "\(folder)")
                let direct = try await Self.propertyChecksums(server, "/link.txt")
                #expect(direct == nil)
            }
        }
    }

    /// The record lives in an attribute the app can write: whatever it plants — garbage, a record of
    /// another version, one naming another entity tag, digests of the wrong length, a long run of bytes — is
    /// never served, and a PROPFIND asking for the property hashes the file and replaces it.
    @Test(.enabled(if: ExternalTool.available("sha1sum", "md5sum")))
    func aRecordTheAppPlantedIsNeverServed() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-checksum") { scratch in
                let text = "planted beside\n"
                try server.plant("p.txt", text)
                let sha1 = try await Self.digest("sha1sum", of: text, in: scratch.path)
                let md5 = try await Self.digest("md5sum", of: text, in: scratch.path)
                let zeros40 = String(repeating: "0", count: 40)
                let zeros32 = String(repeating: "0", count: 32)
                let planted: [[UInt8]] = [
                    Array("garbage".utf8),
                    [0xFF, 0xFE, 0x00, 0x20, 0x31],
                    Array("2 \"1-2-3\" \(zeros40) \(zeros32)".utf8),
                    Array("1 \"1-2-3\" \(zeros40) \(zeros32)".utf8),
                    Array("1 \"1-2-3\" \(zeros40)0 \(zeros32)".utf8),
                    Array(repeating: UInt8(ascii: "1"), count: 3_900),  // ext4 keeps a value in one block
                ]
                let path = server.documents("p.txt")
                for record in planted {
                    // Python's os.setxattr: Glibc's module does not export <sys/xattr.h>.
                    let set = try await ExternalTool.run(
                        "python3",
                        [
                            "-c",
                            "import os, sys; os.setxattr(sys.argv[1], 'user.sandbox.checksums', bytes.fromhex(sys.argv[2]))",
                            path, record.map { String(format: "%02x", $0) }.joined(),
                        ], outputIn: scratch.path)
                    #expect(set.status == 0, "\(set.stderr)")
                    let head = try await server.send("HEAD", "/p.txt")
                    #expect(head.status == 200 && head.header("OC-Checksum") == nil, "\(record.prefix(16)): \(head)")
                    #expect(try await Self.propertyChecksums(server, "/p.txt") == "SHA1:\(sha1) MD5:\(md5)")
                    let kept = try await server.send("HEAD", "/p.txt")
                    #expect(kept.header("OC-Checksum") == "SHA1:\(sha1)", "replaced by the computed one: \(kept)")
                }
            }
        }
    }
}
