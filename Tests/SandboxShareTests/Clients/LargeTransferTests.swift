import Foundation
import Glibc
import SandboxTesting
import Testing

/// A 1 GiB upload and download with curl, and uploads cut off halfway.
@Suite(.serialized) struct LargeTransferTests {
    static let limit = 64 << 20

    @Test(.enabled(if: ExternalTool.available("curl", "sha256sum")), .timeLimit(.minutes(10)))
    func aGibibyteGoesUpAndDownWithTheServerUnder64MiB() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-large") { scratch in
                let source = scratch.appending("large.bin")
                try LargeFile.write(source, size: 1 << 30)
                let credentials = "sandbox:\(server.code)"

                let up = try await ExternalTool.run(
                    "curl",
                    [
                        "-sS", "-u", credentials, "-T", source, "-o", "/dev/null", "-w", "%{http_code}",
                        server.url("/large.bin"),
                    ], outputIn: scratch.path, timeout: .seconds(400))
                #expect(up.stdout == "201", "curl -T of 1 GiB: \(up.stdout) \(up.stderr)")
                let afterPut = try server.peakResidentBytes()
                #expect(afterPut < Self.limit, "server peak RSS after a 1 GiB PUT: \(afterPut >> 20) MiB")

                let back = scratch.appending("back.bin")
                let down = try await ExternalTool.run(
                    "curl", ["-sS", "-u", credentials, "-o", back, "-w", "%{http_code}", server.url("/large.bin")],
                    outputIn: scratch.path, timeout: .seconds(400))
                #expect(down.stdout == "200", "curl GET of 1 GiB: \(down.stdout) \(down.stderr)")
                let afterGet = try server.peakResidentBytes()
                #expect(afterGet < Self.limit, "server peak RSS after a 1 GiB GET: \(afterGet >> 20) MiB")

                let digests = try await LargeFile.digests(
                    [source, server.documents("large.bin"), back], scratch: scratch.path)
                #expect(
                    digests.count == 3 && Set(digests).count == 1, "SHA-256 of source, stored, downloaded: \(digests)")
                print(
                    "1 GiB PUT/GET: server VmHWM \(afterPut >> 20) MiB after the PUT, \(afterGet >> 20) MiB after the GET"
                )
            }
        }
    }

    /// A raw client announces 8 MiB, sends half, and closes (FIN, or RST when `abortively`): the
    /// old file stays as it was and nothing new is left in the home.
    @Test(arguments: [false, true])
    func anUploadCutOffHalfwayLeavesNothing(abortively: Bool) async throws {
        try await ShareServerProcess.with { server in
            try server.plant("kept.bin", "the old contents")
            let before = try homeTree(server)
            let length = 8 << 20
            let half = [UInt8](repeating: 0x61, count: length / 2)
            for name in ["kept.bin", "new.bin"] {
                let head = server.rawRequest(
                    "PUT", "/\(name)", headers: [("Content-Length", "\(length)")], close: false)
                let port = server.port
                try await onOwnThread {
                    let connection = try RawConnection(port: port)
                    try connection.send(head)
                    try connection.send(half)
                    connection.close(abortively: abortively)
                }
            }
            // The server notices the closed connection, then removes its temporary, and says so.
            let answered = await eventually(timeout: .seconds(30)) {
                server.log().components(separatedBy: "PUT /").count - 1 >= 2
            }
            #expect(answered, "the server logged no two cut-off PUTs: \(server.log().suffix(2000))")
            #expect(!server.log().contains("parse error"), "\(server.log().suffix(2000))")
            let cleaned = await eventually(timeout: .seconds(30)) { (try? homeTree(server)) == before }
            let left = try homeTree(server).symmetricDifference(before)
            #expect(cleaned, "the home after two cut-off PUTs: \(left)")
            #expect(server.contents("kept.bin") == "the old contents")
            #expect(server.contents("new.bin") == nil)
            let alive = try await server.send("GET", "/kept.bin")
            #expect(alive.status == 200 && alive.text == "the old contents", "a GET after the cut-off PUTs: \(alive)")
            #expect(try homeTree(server) == before)
        }
    }

    /// curl killed with SIGKILL in the middle of a 64 MiB upload (rate-limited so it is mid-way).
    @Test(.enabled(if: ExternalTool.available("curl")), .timeLimit(.minutes(3)))
    func curlKilledMidUploadLeavesNothing() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-kill") { scratch in
                try server.plant("kept.bin", "the old contents")
                let before = try homeTree(server)
                let source = scratch.appending("upload.bin")
                try LargeFile.write(source, size: 64 << 20)
                let curl = try ExternalTool.program("curl").start(
                    [
                        "-sS", "-u", "sandbox:\(server.code)", "--limit-rate", "8M", "-T", source,
                        server.url("/kept.bin"),
                    ],
                    outputIn: scratch.path)
                // Wait until curl has read (and so sent most of) 16 MiB of the file.
                let midway = await eventually(timeout: .seconds(30)) { Self.bytesRead(by: curl.pid) > 16 << 20 }
                #expect(midway, "curl did not get going")
                curl.signal(SIGKILL)
                _ = await curl.exit(timeout: .seconds(10))
                let cleaned = await eventually(timeout: .seconds(30)) { (try? homeTree(server)) == before }
                let left = try homeTree(server).symmetricDifference(before)
                #expect(cleaned, "the home after a killed curl: \(left)")
                #expect(server.contents("kept.bin") == "the old contents")
            }
        }
    }

    /// `rchar` from `/proc/<pid>/io`: bytes the process has read.
    static func bytesRead(by pid: pid_t) -> Int {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/io", encoding: .utf8)) ?? ""  // gone: nothing read
        let line = text.split(separator: "\n").first { $0.hasPrefix("rchar:") }
        return line.flatMap { Int($0.dropFirst("rchar:".count).trimmingCharacters(in: .whitespaces)) } ?? 0
    }
}

/// Every file (not folder: an empty staging folder is fine) in the server's home, the apps' whole
/// containers, to see that nothing was left anywhere in it, not only in Documents.
func homeTree(_ server: ShareServerProcess) throws -> Set<String> {
    guard FileManager.default.fileExists(atPath: server.home) else { throw TestFailure("no \(server.home)") }
    return Set(FileTree.files(under: server.home))
}
