import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SandboxTransfer
import Testing

/// A daemon that names a finished file outside the container (broken, or not `sandboxd` at all):
/// the app reads nothing there, and the task completes with a protocol error naming the path.
@Suite struct HostileDaemonTests {
    @Test(arguments: ["../outside/secret", "/etc/passwd", "Documents/../../outside/secret"])
    func aFinishedFileOutsideTheContainerFailsTheTask(path: String) async throws {
        try await DaemonFixture.with { fixture in
            let outside = fixture.scratch.appending("outside")
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try Data("secret".utf8).write(to: URL(fileURLWithPath: outside + "/secret"))
            try FileManager.default.createDirectory(
                atPath: fixture.paths.runtimeDirectory, withIntermediateDirectories: true)
            let daemon = try FakeDaemon(socketPath: fixture.paths.socket)
            var finished = BackgroundEventRecord(sequence: 1, taskID: 7, kind: .finished)
            finished.path = path
            finished.byteCount = 6
            let completed = BackgroundEventRecord(sequence: 2, taskID: 7, kind: .completed)
            let messages: [DaemonMessage] = [.event(finished), .event(completed)]
            let served = Task { await onThread { daemon.serve(messages) } }

            var configuration = BackgroundConfiguration.background(identifier: "hostile")
            configuration.daemonPaths = fixture.paths
            configuration.startsDaemon = false
            let session = try await BackgroundSession(
                configuration: configuration, app: AppIdentifier(DaemonFixture.app), in: fixture.home)
            var files: [DownloadedFile] = []
            var completion: SandboxError??
            for await event in session.events {
                switch event {
                case .didFinishDownloading(_, let file): files.append(file)
                case .didComplete(_, let error): completion = error
                default: break
                }
                if completion != nil { break }
            }
            await session.detach()
            let frames = await served.value
            #expect(files.isEmpty, "a file outside the container was handed over: \(files)")
            let error = try #require(completion.flatMap { $0 })
            #expect(error.code == .protocolViolation)
            #expect(error.message.contains("'\(path)'"), "\(error.message)")
            // Both events were acknowledged: they are handled and never sent again.
            #expect(frames.filter { $0.contains("\"acknowledge\"") }.count == 2, "\(frames)")
            #expect(try String(contentsOfFile: outside + "/secret", encoding: .utf8) == "secret")
        }
    }
}
