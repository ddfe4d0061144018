import Foundation
import Sandbox
import SandboxTesting
import SandboxTransferTesting
import Testing

@testable import SandboxTransfer

/// A completed task's record lives in the finished-record log only: the session keeps none in
/// memory, before or after it is reopened, and listings still show each task's result.
@Suite struct CompletedRecordTests {
    let logTests = FinishedRecordLogTests()
    var logPath: ContainerPath { get throws { try FinishedRecordLogTests.tasks.appending(FinishedRecordLog.name) } }

    func listed(_ fixture: Fixture) throws -> [DownloadTaskSummary] {
        try DownloadSession.storedTasks(identifier: "test", container: fixture.container)
    }

    /// Downloads `/a`, `/b`, `/c` (4 KiB each) into Caches; returns their bodies.
    func downloadThree(_ server: FaultServer, _ fixture: Fixture, session: DownloadSession) async throws -> [[UInt8]] {
        var bodies: [[UInt8]] = []
        for (index, name) in ["a", "b", "c"].enumerated() {
            let body = TestData.bytes(4 << 10, seed: 90 + UInt64(index))
            server.set("/\(name)", FaultResource(body: body, etag: "\"\(name)\""))
            let outcome = try await fixture.download(server.url("/\(name)"), session: session).get()
            #expect(outcome.path?.description == "Library/Caches/\(name)")
            bodies.append(body)
        }
        return bodies
    }

    /// Each completed task leaves memory once logged, and is listed with its result, then and
    /// after the folder is reopened; the reopened session keeps none in memory and numbers its next
    /// task after them.
    @Test func completedTasksLeaveMemoryAndStayListed() async throws {
        try await Fixture.withFaultServer { server, fixture in
            let expected: [(url: String, path: String?, bytes: Int64)] = ["a", "b", "c"].map {
                (server.url("/\($0)"), "Library/Caches/\($0)", 4 << 10)
            }
            func check(_ tasks: [DownloadTaskSummary]) {
                #expect(tasks.map(\.state) == [.completed, .completed, .completed])
                #expect(tasks.map(\.url) == expected.map(\.url))
                #expect(tasks.map(\.path) == expected.map(\.path))
                #expect(tasks.map(\.bytesOnDisk) == expected.map(\.bytes))
            }
            do {
                let session = try fixture.session()
                let bodies = try await downloadThree(server, fixture, session: session)
                #expect(
                    try bodies.enumerated().allSatisfy { index, body in
                        try fixture.contents(ContainerPath("Library/Caches/\(["a", "b", "c"][index])")) == body
                    })
                #expect(session.residentRecordCount == 0)
                check(try listed(fixture))
            }
            let session = try await logTests.reopen(fixture)
            #expect(session.residentRecordCount == 0)
            check(try listed(fixture))
            let next = try session.downloadTask(with: try #require(URL(string: server.url("/a"))))
            #expect(next.taskIdentifier > (try listed(fixture).map(\.taskIdentifier).max() ?? .max))
        }
    }

    /// A completed task removed (no longer in memory) is gone from the log, also after a reopen;
    /// the others stay. 300 records make a log of several read chunks.
    @Test func aRemovedCompletedTaskStaysRemoved() async throws {
        try await Fixture.with { fixture in
            let removed: Int
            var kept: [Int] = []
            do {
                let session = try fixture.session()
                for index in 0..<300 { kept.append(try logTests.task("t\(index)", of: session)) }
                #expect(session.residentRecordCount == 0)
                #expect(try fixture.root.fileSize(at: try logPath) ?? 0 > 64 << 10)
                removed = kept.remove(at: 150)
                try session.store.remove(removed)
                #expect(try listed(fixture).map(\.taskIdentifier) == kept)
            }
            let session = try await logTests.reopen(fixture)
            #expect(session.residentRecordCount == 0)
            #expect(try listed(fixture).map(\.taskIdentifier) == kept)
            try session.store.remove(kept.removeFirst())
            #expect(try listed(fixture).map(\.taskIdentifier) == kept)
        }
    }

    /// The log is the app's to damage: a whole line past the limit or not UTF-8 is refused with the
    /// line named, by the session and by listings, and the log is left as it was.
    @Test(arguments: [
        ("long", Array(repeating: UInt8(ascii: "x"), count: 10 << 20)),
        ("garbage", Array("not a record at all".utf8)),
        ("notUTF8", [0x7B, 0x22, 0xFF, 0xFE, 0x22, 0x7D]),
    ])
    func aHostileLineIsRefused(_ kind: String, _ line: [UInt8]) async throws {
        try await Fixture.with { fixture in
            try logTests.task("a", of: try fixture.session())
            let damaged = try fixture.root.readContents(of: try logPath) + line + [UInt8(ascii: "\n")]
            try fixture.root.writeContents(damaged, to: try logPath)
            let opening = await #expect(throws: SandboxError.self) { try await logTests.reopen(fixture) }
            let listing = #expect(throws: SandboxError.self) { try listed(fixture) }
            for error in [opening, listing] {
                #expect(error?.code == .corrupt, "\(kind)")
                #expect(error?.path == "\(try logPath) line 2", "\(kind)")
            }
            if kind == "long" { #expect(opening?.message.contains("longer than 1048576 bytes") == true) }
            #expect(try fixture.root.readContents(of: try logPath, maximumSize: 1 << 30) == damaged)
        }
    }

    /// A last line without its newline is one a kill cut short, however long: readers skip it and
    /// the next append cuts it off.
    @Test func aLongLineCutShortIsIgnored() async throws {
        try await Fixture.with { fixture in
            try logTests.task("a", of: try fixture.session())
            let whole = try fixture.root.readContents(of: try logPath)
            try fixture.root.writeContents(
                whole + Array(repeating: UInt8(ascii: "{"), count: 10 << 20), to: try logPath)
            #expect(try listed(fixture).map(\.state) == [.completed])
            try logTests.task("b", of: try await logTests.reopen(fixture))
            #expect(try listed(fixture).map(\.state) == [.completed, .completed])
            #expect(try fixture.root.fileSize(at: try logPath) ?? 0 < 4 << 10)
        }
    }

    /// A record longer than a line may be is refused when logged, not written to be refused when read.
    @Test func aRecordPastTheLineLimitIsNotLogged() async throws {
        try await Fixture.with { fixture in
            let session = try fixture.session()
            let request = DownloadRequest(
                url: try #require(URL(string: "http://127.0.0.1:9/a.bin")),
                headers: ["X-Large": String(repeating: "y", count: 1 << 20)])
            let task = try session.downloadTask(with: request)
            let error = #expect(throws: SandboxError.self) {
                try session.store.update(task.taskIdentifier) { $0.phase = .completed(path: nil) }
            }
            #expect(error?.code == .invalidArgument)
            #expect(try listed(fixture).isEmpty)
        }
    }
}
