import Foundation
import SandboxTesting
import Testing

/// rclone's `webdav` backend copying a tree of 1,000 files up, checking it, and copying it back down.
@Suite struct RcloneTests {
    @Test(.enabled(if: ExternalTool.available("rclone")), .timeLimit(.minutes(10)))
    func aThousandFileTreeGoesUpAndComesBackByteIdentical() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-rclone") { scratch in
                let source = scratch.appending("source")
                let count = try FileTree.make(at: source, count: 1000).count
                let obscured = try await ExternalTool.run(
                    "rclone", ["obscure", server.code], environment: ["HOME": scratch.path], outputIn: scratch.path)
                #expect(obscured.exit == .exited(0), "rclone obscure: \(obscured.stderr)")
                let remote =
                    ":webdav,url='\(server.url)',vendor=other,user=sandbox,pass="
                    + obscured.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + ":up"
                func rclone(_ arguments: [String]) async throws -> ProgramOutput {
                    let output = try await ExternalTool.run(
                        "rclone", arguments + ["--config", scratch.appending("rclone.conf"), "--transfers", "8"],
                        environment: ["HOME": scratch.path], outputIn: scratch.path, timeout: .seconds(400))
                    #expect(
                        output.exit == .exited(0),
                        "rclone \(arguments.first ?? ""): \(output.stderr.suffix(3000))\nserver: \(server.log().suffix(2000))"
                    )
                    return output
                }

                _ = try await rclone(["copy", source, remote])
                #expect(FileTree.files(under: server.documents("up")).count == count)
                let onDisk = FileTree.differences(between: source, and: server.documents("up"))
                #expect(onDisk.isEmpty, "Documents/up after rclone copy: \(onDisk.prefix(10))")

                let check = try await rclone(["check", source, remote])
                #expect(check.stderr.contains("0 differences found"), "rclone check: \(check.stderr.suffix(2000))")

                let back = scratch.appending("back")
                _ = try await rclone(["copy", remote, back])
                let roundTrip = FileTree.differences(between: source, and: back)
                #expect(roundTrip.isEmpty, "the tree after a round trip: \(roundTrip.prefix(10))")

                let listing = try await rclone(["lsl", remote])
                let lines = listing.stdout.split(separator: "\n")
                #expect(lines.count == count, "rclone lsl lists every file")
                let format = DateFormatter()
                format.dateFormat = "yyyy-MM-dd HH:mm:ss"
                let stale = lines.filter { line in
                    // "   1234 2026-05-01 12:34:56.000000000 path", local time
                    let fields = line.split(separator: " ", maxSplits: 3)
                    guard fields.count == 4, let date = format.date(from: "\(fields[1]) \(fields[2].prefix(8))") else {
                        return true
                    }
                    return abs(date.timeIntervalSinceNow) > 86_400
                }
                #expect(stale.isEmpty, "rclone lsl shows the files' real modification times: \(stale.prefix(3))")
            }
        }
    }
}
