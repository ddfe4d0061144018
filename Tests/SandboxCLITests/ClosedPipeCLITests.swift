import Foundation
import Glibc
import Sandbox
import SandboxTesting
import Testing

/// `sandbox ls --json | head -c1`: a reader that goes away ends the command quietly, never with a
/// trap or a death by `SIGPIPE`.
@Suite struct ClosedPipeCLITests {
    let app = "com.example.notes"

    @Test(arguments: [["--json"], []])
    func aReaderThatGoesAwayEndsTheListingQuietly(_ options: [String]) async throws {
        try await CLI.withTemporary { cli in
            let container = try SandboxHome(location: cli.home).createContainer(for: AppIdentifier(app))
            // More than a pipe holds (64 KiB), so the command is still writing when the reader leaves.
            for index in 0..<1500 {
                try container.root.createDirectory(at: ContainerPath("Documents/folder-with-a-long-name-\(index)"))
            }
            // A named pipe, opened close-on-exec: no other test's child can inherit a reader and keep it open.
            let fifo = cli.scratch + "/stdout.fifo"
            try #require(mkfifo(fifo, 0o600) == 0)
            let reader = open(fifo, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
            try #require(reader >= 0)
            let running = try BuiltProgram(path: "/bin/sh").start(
                ["-c", "exec \"$0\" \"$@\" > \"$FIFO\"", try CLI.program.path, "ls", app, "Documents"] + options,
                environment: ["SANDBOX_HOME": cli.home, "FIFO": fifo], outputIn: cli.scratch)
            var first: UInt8 = 0
            #expect(await eventually { read(reader, &first, 1) == 1 })  // like head -c1
            close(reader)
            let output = try await running.finish()
            #expect(output.exit.signal == nil, "killed by signal \(output.exit.signal ?? 0)")
            #expect(output.status == 0)
            #expect(output.stderr.isEmpty)
            #expect(first == UInt8(ascii: options.isEmpty ? "I" : "["))
        }
    }
}
