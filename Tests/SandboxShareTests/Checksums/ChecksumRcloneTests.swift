import Foundation
import Glibc
import SandboxTesting
import Testing

/// rclone's `webdav` backend as ownCloud's client (`vendor=owncloud`: SHA-1 sent with each upload,
/// `oc:checksums` asked for in listings, MD5 the hash `rclone check` compares) against the share.
@Suite struct ChecksumRcloneTests {
    @Test(.enabled(if: ExternalTool.available("rclone")), .timeLimit(.minutes(5)))
    func rcloneComparesByHashAndSeesChangesSizesAndTimesHide() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-rclone-sums") { scratch in
                let source = scratch.appending("source")
                let count = try FileTree.make(at: source, count: 40).count
                let obscured = try await ExternalTool.run(
                    "rclone", ["obscure", server.code], environment: ["HOME": scratch.path], outputIn: scratch.path)
                let remote =
                    ":webdav,url='\(server.url)',vendor=owncloud,user=sandbox,pass="
                    + obscured.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + ":up"
                func rclone(_ arguments: [String], succeeds: Bool = true) async throws -> ProgramOutput {
                    let output = try await ExternalTool.run(
                        "rclone", arguments + ["--config", scratch.appending("rclone.conf"), "--transfers", "4"],
                        environment: ["HOME": scratch.path], outputIn: scratch.path, timeout: .seconds(200))
                    #expect(
                        (output.exit == .exited(0)) == succeeds,
                        "rclone \(arguments.first ?? ""): \(output.stderr.suffix(3000))\nserver: \(server.log().suffix(2000))"
                    )
                    return output
                }

                _ = try await rclone(["copy", source, remote])
                #expect(FileTree.files(under: server.documents("up")).count == count)

                // The remote's sums, from the share's `oc:checksums`, are the local files' sums.
                for type in ["sha1", "md5"] {
                    let local = try await rclone(["hashsum", type, source])
                    let shared = try await rclone(["hashsum", type, remote])
                    let lines = { (text: String) in text.split(separator: "\n").map(String.init).sorted() }
                    #expect(lines(shared.stdout).count == count, "\(type): \(shared.stdout.prefix(500))")
                    #expect(lines(shared.stdout) == lines(local.stdout), "rclone hashsum \(type)")
                }
                let check = try await rclone(["check", source, remote])
                #expect(check.stderr.contains("0 differences found"), "\(check.stderr.suffix(2000))")
                #expect(!check.stderr.contains("hashes could not be checked"), "compared by hash: \(check.stderr)")

                let files = FileTree.files(under: source).sorted()
                let changedHere = try #require(files.first)
                let changedThere = try #require(files.last)

                // A local file changed with its size and time kept: sizes and times say equal, the hash not.
                let local = source + "/" + changedHere
                var status = stat()
                #expect(stat(local, &status) == 0)
                var bytes = try Data(contentsOf: URL(fileURLWithPath: local))
                bytes[0] ^= 0xFF
                try bytes.write(to: URL(fileURLWithPath: local))
                let times = [status.st_atim, status.st_mtim]
                #expect(utimensat(AT_FDCWD, local, times, 0) == 0)

                // The app rewrites a shared file in place, same size: its stored sums are stale.
                let shared = server.documents("up/" + changedThere)
                var sharedBytes = try Data(contentsOf: URL(fileURLWithPath: shared))
                sharedBytes[sharedBytes.count - 1] ^= 0xFF
                let handle = try #require(FileHandle(forWritingAtPath: shared))
                try handle.write(contentsOf: sharedBytes)
                try handle.close()

                let differing = try await rclone(["check", source, remote], succeeds: false)
                #expect(differing.stderr.contains("2 differences found"), "\(differing.stderr.suffix(3000))")
                #expect(differing.stderr.contains(changedHere) && differing.stderr.contains(changedThere))
            }
        }
    }
}
