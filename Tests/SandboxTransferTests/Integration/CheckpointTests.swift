import Foundation
import Sandbox
import SandboxTesting
import SandboxTransferTesting
import Testing

@testable import SandboxTransfer

/// When a task's checkpoint is written: a small transfer only when it completes, fails, pauses or
/// has run for the checkpoint interval; a larger one before its first byte.
@Suite struct CheckpointTests {
    /// `Fixture.fast` that waits out a stalled server and never checkpoints on time alone.
    static var patient: DownloadSession.Configuration {
        var configuration = Fixture.fast
        configuration.stallTimeout = .seconds(120)
        configuration.checkpointInterval = .seconds(120)
        return configuration
    }

    /// 16 KiB, of which the server sends 4 KiB and then nothing (without closing).
    static func stalling() -> FaultResource {
        var resource = FaultResource(body: TestData.bytes(16 << 10, seed: 61), etag: "\"small\"")
        resource.stallAfter = [4096]
        return resource
    }

    func states(_ fixture: Fixture) throws -> [String] {
        try DownloadSession.storedTasks(identifier: "test", container: fixture.container).map(\.state.rawValue)
    }

    /// The checkpoint folder's files.
    func checkpoints(_ fixture: Fixture) throws -> [String] {
        try fixture.root.fileNames(at: DownloadSession.folder.appending("test").appending("tasks")).sorted()
    }

    @Test func aSmallTransferIsCheckpointedOnlyWhenItEnds() async throws {
        try await Fixture.withFaultServer { server, fixture in
            server.set("/stalls", Self.stalling())
            let session = try fixture.session("test", Self.patient)
            let task = try session.downloadTask(with: try #require(URL(string: server.url("/stalls"))))
            task.resume()
            #expect(await eventually { (try? fixture.partialSizes()) == [4096] })
            #expect(try states(fixture) == [])  // 4 KiB on disk, nothing checkpointed: a kill forgets it
            task.cancel()
            #expect(await task.result().failure?.code == .cancelled)
            #expect(try states(fixture) == ["cancelled"])

            let body = TestData.bytes(16 << 10, seed: 62)
            server.set("/small", FaultResource(body: body, etag: "\"small\""))
            let outcome = try await fixture.download(server.url("/small"), session: session).get()
            #expect(try fixture.contents(outcome.path) == body)
            #expect(try states(fixture) == ["cancelled", "completed"])
            // the completed record is a line of the log, not a file of its own
            #expect(try checkpoints(fixture) == ["\(task.taskIdentifier).json", FinishedRecordLog.name])
            #expect(try fixture.leftovers().isEmpty)
        }
    }

    @Test func aLargerTransferIsCheckpointedBeforeItsFirstByte() async throws {
        try await Fixture.withFaultServer { server, fixture in
            server.set("/stalls", Self.stalling())
            var configuration = Self.patient
            configuration.smallTransferLimit = 4096
            let session = try fixture.session("test", configuration)
            let task = try session.downloadTask(with: try #require(URL(string: server.url("/stalls"))))
            task.resume()
            #expect(await eventually { (try? fixture.partialSizes()) == [4096] })
            #expect(try states(fixture) == ["interrupted"])  // what a kill now would leave
            task.cancel()
            #expect(await task.result().failure?.code == .cancelled)
        }
    }

    @Test func aSmallSlowTransferIsCheckpointedAfterTheInterval() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = Self.stalling()
            resource.chunkSize = 1024
            // Four writes, 200 ms apart, then the stall: the interval (10 ms) has passed when the
            // last part is written however late the engine makes the writer, and unless the
            // client's event loop stalls for 0.6 s, the parts do not all arrive with the head.
            resource.chunkDelayMilliseconds = 200
            server.set("/stalls", resource)
            var configuration = Self.patient
            configuration.checkpointInterval = .milliseconds(10)
            let session = try fixture.session("test", configuration)
            let task = try session.downloadTask(with: try #require(URL(string: server.url("/stalls"))))
            task.resume()
            #expect(await eventually { (try? states(fixture)) == ["interrupted"] })
            task.cancel()
            #expect(await task.result().failure?.code == .cancelled)
        }
    }

    /// The destination folder is made when the move finds it missing.
    @Test func aDownloadIntoARemovedFolderRecreatesIt() async throws {
        try await Fixture.withFaultServer { server, fixture in
            let body = TestData.bytes(1000, seed: 63)
            server.set("/doc.bin", FaultResource(body: body, etag: "\"d\""))
            _ = try fixture.root.removeItem(at: ContainerPath("Documents"), recursively: true)
            let session = try fixture.session()
            let outcome = try await fixture.download(
                server.url("/doc.bin"), session: session, destination: .documents
            ).get()
            #expect(outcome.path == (try ContainerPath("Documents/doc.bin")))
            #expect(try fixture.contents(outcome.path) == body)
        }
    }
}
