import Foundation
import Sandbox
import SandboxTesting
import SandboxTransferTesting
import Testing

@testable import SandboxTransfer

/// Completed records as lines of one log: what a kill leaves, and what damage is refused.
@Suite struct FinishedRecordLogTests {
    static let tasks = ContainerPath(constant: "Library/Caches/com.sandbox.downloads/test/tasks")

    func log(_ fixture: Fixture) throws -> [UInt8] {
        try fixture.root.readContents(of: Self.tasks.appending(FinishedRecordLog.name))
    }

    /// Opens the session once the previous one has let go of it (its last reference can outlive
    /// the scope that made it by a moment), or returns the error of the first open that fails
    /// otherwise.
    func reopen(_ fixture: Fixture) async throws -> DownloadSession {
        var result: Result<DownloadSession, any Error> = .failure(CancellationError())
        _ = await eventually {
            result = Result { try fixture.session() }
            if case .failure(let error as SandboxError) = result, error.code == .sessionInUse { return false }
            return true
        }
        return try result.get()
    }

    /// A new task of `session` for `/<name>.bin`, its record changed by `change` and written:
    /// completed (to the log) by default.
    @discardableResult
    func task(
        _ name: String, of session: DownloadSession,
        _ change: (inout TaskRecord) -> Void = { $0.phase = .completed(path: nil) }
    ) throws -> Int {
        let task = try session.downloadTask(with: try #require(URL(string: "http://127.0.0.1:9/\(name).bin")))
        try session.store.update(task.taskIdentifier, change)
        return task.taskIdentifier
    }

    func states(_ fixture: Fixture) throws -> [String] {
        try DownloadSession.storedTasks(identifier: "test", container: fixture.container).map(\.state.rawValue)
    }

    /// A record checkpointed in a file of its own (a larger download) moves to the log when it
    /// completes, and a session opened afterwards finds it there.
    @Test func aCompletedRecordLeavesItsFileForTheLog() async throws {
        try await Fixture.withFaultServer { server, fixture in
            let body = TestData.bytes(64 << 10, seed: 71)
            server.set("/f", FaultResource(body: body, etag: "\"f\""))
            var configuration = Fixture.fast
            configuration.smallTransferLimit = 0
            do {
                let session = try fixture.session("test", configuration)
                let outcome = try await fixture.download(server.url("/f"), session: session).get()
                #expect(try fixture.contents(outcome.path) == body)
                #expect(try fixture.root.fileNames(at: Self.tasks) == [FinishedRecordLog.name])
            }
            let session = try await reopen(fixture)
            #expect(session.residentRecordCount == 0)  // read from the log when listed
            let listed = try DownloadSession.storedTasks(identifier: "test", container: fixture.container)
            #expect(listed.map(\.path) == ["Library/Caches/f"])
            #expect(try states(fixture) == ["completed"])
        }
    }

    /// Killed between the log's append and the removal of the task's file: the log wins, and the
    /// next session removes the file.
    @Test func aFileTheLogSupersedesIsRemoved() async throws {
        try await Fixture.with { fixture in
            let id = try task("a", of: try fixture.session()) { _ in }  // its own file
            let stale = try fixture.root.readContents(of: Self.tasks.appending("\(id).json"))
            do {
                let session = try await reopen(fixture)
                try session.store.update(id) { $0.phase = .completed(path: nil) }
            }
            try fixture.root.writeContents(stale, to: Self.tasks.appending("\(id).json"))  // as if killed in between
            #expect(try states(fixture) == ["completed"])
            let session = try await reopen(fixture)
            #expect(session.store.record(id) == nil)  // completed: in the log only
            #expect(try states(fixture) == ["completed"])
            #expect(try fixture.root.fileNames(at: Self.tasks) == [FinishedRecordLog.name])
        }
    }

    /// A last line a kill cut short is ignored by readers and cut off by the next session's first
    /// append; the lines before it stay.
    @Test func aLineCutShortIsIgnoredThenCutOff() async throws {
        try await Fixture.with { fixture in
            try task("a", of: try fixture.session())
            let whole = try log(fixture)
            try fixture.root.writeContents(
                whole + Array(whole.prefix(40)), to: Self.tasks.appending(FinishedRecordLog.name))
            #expect(try states(fixture) == ["completed"])
            try task("b", of: try await reopen(fixture))
            let lines = try log(fixture).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
            #expect(lines.count == 3 && lines.last?.isEmpty == true)  // two whole lines
            #expect(Array(lines[0]) + [UInt8(ascii: "\n")] == whole)
            #expect(try states(fixture) == ["completed", "completed"])
        }
    }

    /// A damaged whole line is refused with the log and the line named; nothing is changed.
    @Test func aDamagedLineIsRefused() async throws {
        try await Fixture.with { fixture in
            try task("a", of: try fixture.session())
            let path = try Self.tasks.appending(FinishedRecordLog.name)
            let damaged = Array("{\"id\": 1}\n".utf8) + (try log(fixture))
            try fixture.root.writeContents(damaged, to: path)
            let error = await #expect(throws: SandboxError.self) { try await reopen(fixture) }
            #expect(error?.code.description == "corrupt")
            #expect(error?.path == "\(path) line 1")
            #expect(try fixture.root.readContents(of: path) == damaged)
        }
    }

    /// Removing a completed record rewrites the log without it.
    @Test func removingALoggedRecordRewritesTheLog() async throws {
        try await Fixture.with { fixture in
            do {
                let session = try fixture.session()
                let ids = try ["a", "b", "c"].map { try task($0, of: session) }
                try session.store.remove(ids[1])
                try task("d", of: session)
            }
            let urls = try DownloadSession.storedTasks(identifier: "test", container: fixture.container).map(\.url)
            #expect(urls == ["http://127.0.0.1:9/a.bin", "http://127.0.0.1:9/c.bin", "http://127.0.0.1:9/d.bin"])
        }
    }
}
