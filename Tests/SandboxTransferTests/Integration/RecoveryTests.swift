import Foundation
import Sandbox
import SandboxTransferTesting
import Testing

@testable import SandboxTransfer

/// What a session re-created after a kill finds in its checkpoint.
@Suite struct RecoveryTests {
    /// A kill forgets a task never checkpointed, so the next session may give its identifier again:
    /// the partial file's name must still be new (its random part is drawn once per session object).
    @Test func partialNamesAreNotReusedWhenIdentifiersAre() async throws {
        try await Fixture.with { fixture in
            let url = try #require(URL(string: "http://127.0.0.1:9/x.bin"))
            let first: (id: Int, name: String)
            do {
                let session = try fixture.session()
                let task = try session.downloadTask(with: url)
                let other = try session.downloadTask(with: url)
                let name = try #require(session.store.record(task.taskIdentifier)).partialName
                let otherName = try #require(session.store.record(other.taskIdentifier)).partialName
                #expect(name != otherName)
                first = (task.taskIdentifier, name)
            }
            let session = try fixture.session()
            let again = try session.downloadTask(with: url)
            #expect(again.taskIdentifier == first.id)  // forgotten: the identifier comes again
            #expect(try #require(session.store.record(again.taskIdentifier)).partialName != first.name)
        }
    }

    @Test func aHandOverCutShortIsFinished() async throws {
        try await Fixture.with { fixture in
            let body = TestData.bytes(10_000, seed: 31)
            var partialName = ""
            do {
                let session = try fixture.session()
                let request = DownloadRequest(
                    url: try #require(URL(string: "http://127.0.0.1:9/x.bin")), destination: .documents)
                let task = try session.downloadTask(with: request)
                let record = try #require(session.store.record(task.taskIdentifier))
                partialName = record.partialName
                try fixture.root.writeContents(body, to: try session.partialPath(partialName))
                // Killed between checkpointing "finishing" and moving the file:
                try session.store.update(task.taskIdentifier) { $0.phase = .finishing(name: "x.bin") }
            }
            let session = try fixture.session()
            #expect(try fixture.contents(try ContainerPath("Documents/x.bin")) == body)
            #expect(session.residentRecordCount == 0)  // completed: read from the log
            let listed = try DownloadSession.storedTasks(identifier: "test", container: fixture.container)
            #expect(listed.map(\.state) == [.completed] && listed.map(\.path) == ["Documents/x.bin"])
            #expect(try fixture.leftovers().isEmpty)
        }
    }

    /// A hand-over cut short whose "partial file" is now a symlink (put there by someone else)
    /// moves nothing into the destination: only a regular file is handed over.
    @Test func aHandOverOfASymlinkMovesNothing() async throws {
        try await Fixture.with { fixture in
            do {
                let session = try fixture.session()
                let request = DownloadRequest(
                    url: try #require(URL(string: "http://127.0.0.1:9/x.bin")), destination: .documents)
                let task = try session.downloadTask(with: request)
                let record = try #require(session.store.record(task.taskIdentifier))
                let partial = try session.partialPath(record.partialName)
                try fixture.root.writeContents([1], to: try session.partialPath("target"))
                #expect(symlink("target", fixture.container.homeDirectory + "/" + partial.description) == 0)
                try session.store.update(task.taskIdentifier) { $0.phase = .finishing(name: "x.bin") }
            }
            let session = try fixture.session()
            #expect(try fixture.files(in: .documents).isEmpty)
            #expect(session.residentRecordCount == 0)  // completed: read from the log
            let listed = try DownloadSession.storedTasks(identifier: "test", container: fixture.container)
            #expect(listed.map(\.state) == [.completed] && listed.map(\.path) == [nil])
            #expect(try fixture.leftovers().isEmpty)
        }
    }

    @Test func strayFilesAreSweptAndUnresumableTasksReported() async throws {
        try await Fixture.with { fixture in
            var taskIdentifier = 0
            do {
                let session = try fixture.session()
                let task = try session.downloadTask(with: try #require(URL(string: "http://127.0.0.1:9/y.bin")))
                taskIdentifier = task.taskIdentifier
                let record = try #require(session.store.record(taskIdentifier))
                try fixture.root.writeContents([1, 2, 3], to: try session.partialPath(record.partialName))
                try session.store.update(taskIdentifier) { _ in }  // checkpointed without a validator
                try fixture.root.writeContents([4], to: try session.partialPath("stray.partial"))
            }
            let session = try fixture.session()
            var reported: SandboxError?
            for await event in session.events {
                if case .didComplete(let task, let error) = event, task.taskIdentifier == taskIdentifier {
                    reported = error
                    break
                }
            }
            #expect(reported?.code == .interrupted)
            #expect(reported?.resumeData == nil)  // no validator: it could not continue safely
            #expect(try fixture.leftovers().isEmpty)
            #expect(
                try DownloadSession.storedTasks(identifier: "test", container: fixture.container).map(\.state) == [
                    .failed
                ])
        }
    }

    /// A download that fails without resume data says why, and listings never show bytes that
    /// are no longer on disk (deleted with a failure, or by someone else).
    @Test func listingsShowOnlyBytesOnDisk() async throws {
        try await Fixture.withFaultServer { server, fixture in
            var resource = FaultResource(body: TestData.bytes(300_000, seed: 33), etag: "W/\"weak\"")
            resource.dropAfter = [100_000]
            server.set("/f", resource)
            let session = try fixture.session("test", Fixture.noRetries)
            let error = try #require(try await fixture.download(server.url("/f"), session: session).failure)
            #expect(error.resumeData == nil)
            #expect(error.message.contains("cannot be resumed"), "\(error.message)")
            let unfinished = try session.downloadTask(with: try #require(URL(string: server.url("/g"))))
            let record = try #require(session.store.record(unfinished.taskIdentifier))
            try fixture.root.writeContents([1, 2, 3], to: try session.partialPath(record.partialName))
            try session.store.update(record.id) { $0.bytesOnDisk = 3 }
            #expect(
                try DownloadSession.storedTasks(identifier: "test", container: fixture.container).map(\.bytesOnDisk)
                    == [0, 3])
            _ = try fixture.root.removeItem(at: try session.partialPath(record.partialName))
            let summaries = try DownloadSession.storedTasks(identifier: "test", container: fixture.container)
            #expect(summaries.map(\.state) == [.failed, .interrupted])
            #expect(summaries.map(\.bytesOnDisk) == [0, 0])
        }
    }

    /// A checkpoint whose partial file name is not one plain name (a hostile or damaged file) is
    /// refused with a precise error; nothing is deleted, the session's folder least of all.
    @Test(arguments: ["x/y", "..", ""])
    func aCheckpointNamingAnotherFileIsRefused(partialName: String) async throws {
        try await Fixture.with { fixture in
            var checkpoint = try ContainerPath("x")
            do {
                let session = try fixture.session()
                let task = try session.downloadTask(with: try #require(URL(string: "http://127.0.0.1:9/z.bin")))
                try session.store.update(task.taskIdentifier) { _ in }
                checkpoint = try DownloadSession.folder.appending("test").appending("tasks").appending(
                    "\(task.taskIdentifier).json")
            }
            let original = try fixture.root.readContents(of: checkpoint)
            let json = try #require(String(validating: original, as: UTF8.self))
            let hostile = json.replacing(/"partialName":"[^"]*"/, with: "\"partialName\":\"\(partialName)\"")
            try fixture.root.writeContents(Array(hostile.utf8), to: checkpoint)
            let error = #expect(throws: SandboxError.self) { try fixture.session() }
            #expect(error?.code.description == "corrupt")
            #expect(error?.path == checkpoint.description)
            #expect(try fixture.root.readContents(of: checkpoint) == Array(hostile.utf8))
            #expect(try fixture.root.fileExists(at: DownloadSession.folder.appending("test").appending(".lock")))
        }
    }

    /// Every session's tasks are listed with their session, without opening any.
    @Test func listingsCoverEverySession() async throws {
        try await Fixture.with { fixture in
            for identifier in ["b", "a"] {
                let session = try fixture.session(identifier)
                let task = try session.downloadTask(
                    with: try #require(URL(string: "http://127.0.0.1:9/\(identifier).bin")))
                try session.store.update(task.taskIdentifier) { _ in }
            }
            let tasks = try DownloadSession.storedTasks(container: fixture.container)
            #expect(tasks.map(\.sessionIdentifier) == ["a", "b"])
            #expect(tasks.map(\.url) == ["http://127.0.0.1:9/a.bin", "http://127.0.0.1:9/b.bin"])
        }
    }

    @Test func oneProcessAtATime() async throws {
        try await Fixture.with { fixture in
            let session = try fixture.session()
            let error = #expect(throws: SandboxError.self) { try fixture.session() }
            #expect(error?.code == .sessionInUse)
            _ = session
            #expect(throws: SandboxError.self) { try fixture.session("../escape") }
        }
    }
}
