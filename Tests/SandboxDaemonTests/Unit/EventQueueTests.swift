import Foundation
import GRDB
import SandboxTesting
import SandboxTransfer
import Testing

@testable import SandboxDaemon

/// The durable queue without sockets: order, acknowledgement, survival across a reopen, expiry,
/// task numbering per session.
@Suite struct EventQueueTests {
    private let key = SessionKey(app: "com.example.a", session: "s")
    private let other = SessionKey(app: "com.example.a", session: "t")

    @Test func eventsComeBackInOrderUntilAcknowledgedAndSurviveAReopen() throws {
        try ScratchDirectory.with(prefix: "sbd-queue") { scratch in
            let path = scratch.appending("queue.sqlite")
            var queue = try EventQueue(path: path)
            var sequences: [Int64] = []
            for task in 1...5 {
                let event = try queue.append(BackgroundEventRecord(taskID: task, kind: .completed), for: key)
                sequences.append(event.sequence)
                _ = try queue.append(BackgroundEventRecord(taskID: task, kind: .finished), for: other)
            }
            #expect(sequences == sequences.sorted() && Set(sequences).count == 5)
            #expect(try queue.pending(for: key).map(\.taskID) == [1, 2, 3, 4, 5])
            try queue.acknowledge(key, upTo: sequences[1])
            #expect(try queue.pending(for: key).map(\.taskID) == [3, 4, 5])
            #expect(try queue.pending(for: other).count == 5, "another session's events are untouched")
            queue = try EventQueue(path: path)  // as after a kill: only committed state is read
            #expect(try queue.pending(for: key).map(\.sequence) == Array(sequences[2...]))
            try queue.acknowledge(key, upTo: sequences[4])
            #expect(try queue.pending(for: key).isEmpty)
            #expect(try queue.queuedEventCount() == 5)
            try queue.expire(olderThan: -1)  // everything is older than "one second from now"
            #expect(try queue.queuedEventCount() == 0)
        }
    }

    @Test func tasksAreNumberedPerSessionAndUpdated() throws {
        try ScratchDirectory.with(prefix: "sbd-queue") { scratch in
            let queue = try EventQueue(path: scratch.appending("queue.sqlite"))
            let request = BackgroundRequest(DownloadRequest(url: try #require(URL(string: "http://h/x"))))
            #expect(try queue.addTask(request, to: key) == 1)
            #expect(try queue.addTask(request, to: key) == 2)
            #expect(try queue.addTask(request, to: other) == 1)
            try queue.updateTask(key, 2, .running(underlying: 7))
            try queue.updateTask(key, 2, .completed(errorCode: "cancelled", bytesWritten: 0, expectedLength: nil))
            let stored = try queue.tasks(app: key.app, session: key.session)
            #expect(stored.map(\.info.state) == [.waiting, .completed])
            #expect(stored.last?.underlying == 7 && stored.last?.info.errorCode == "cancelled")
            #expect(try queue.tasks(app: key.app).count == 3)
        }
    }

    /// Commits append to a write-ahead log instead of syncing a rollback journal two or three
    /// times each (what bounded a batch of small background downloads at ~30 tasks/s).
    @Test func commitsGoToAWriteAheadLog() throws {
        try ScratchDirectory.with(prefix: "sbd-queue") { scratch in
            let path = scratch.appending("queue.sqlite")
            let queue = try EventQueue(path: path)
            _ = try queue.append(BackgroundEventRecord(taskID: 1, kind: .completed), for: key)
            #expect(FileManager.default.fileExists(atPath: path + "-wal"))
            #expect(!FileManager.default.fileExists(atPath: path + "-journal"))
        }
    }

    /// A row this version cannot read (a newer daemon's, or damaged) is left in place and does not
    /// keep the rows after it from being read.
    @Test func rowsThisVersionCannotReadAreLeftAloneAndTheOthersRead() throws {
        try ScratchDirectory.with(prefix: "sbd-queue") { scratch in
            let path = scratch.appending("queue.sqlite")
            let queue = try EventQueue(path: path)
            let sequences = try (1...3).map { task in
                try queue.append(BackgroundEventRecord(taskID: task, kind: .completed), for: key).sequence
            }
            let request = BackgroundRequest(DownloadRequest(url: try #require(URL(string: "http://h/x"))))
            for _ in 1...3 { _ = try queue.addTask(request, to: key) }
            try DatabaseQueue(path: path).write { db in
                try db.execute(
                    sql: "UPDATE event SET body = '{\"kind\": ' WHERE sequence = ?", arguments: [sequences[0]])
                try db.execute(sql: "UPDATE task SET request = '[]' WHERE id = 1")
                try db.execute(sql: "UPDATE task SET state = 'from-the-future' WHERE id = 2")
            }
            #expect(try queue.pending(for: key).map(\.taskID) == [2, 3])
            #expect(try queue.tasks(app: key.app, session: key.session).map(\.info.taskID) == [3])
            #expect(try queue.queuedEventCount() == 3, "the unreadable event is kept")
        }
    }

    @Test func aDamagedQueueIsACorruptError() throws {
        try ScratchDirectory.with(prefix: "sbd-queue") { scratch in
            let path = scratch.appending("queue.sqlite")
            try Data(repeating: 0x41, count: 4096).write(to: URL(fileURLWithPath: path))
            do throws(SandboxError) {
                _ = try EventQueue(path: path)
                Issue.record("a damaged queue opened")
            } catch {
                #expect(error.code == .corrupt)
                #expect(error.message.contains(path) && error.message.contains("move the file away"))
            }
        }
    }
}
