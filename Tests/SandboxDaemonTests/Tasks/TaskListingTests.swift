import Foundation
import Glibc
import Sandbox
import SandboxTesting
import Testing

@testable import SandboxDaemon
@testable import SandboxTransfer

/// `list` a page at a time (issue 31): a list longer than one frame holds reaches the client
/// whole and in order, and a cursor the daemon did not hand out is refused precisely.
@Suite struct TaskListingTests {
    /// Tasks with ~300-byte URLs: 5,000 of them are ~1.7 MiB as one answer, past the protocol's
    /// 1 MiB frame (the daemon used to build that answer and close the connection).
    static let url = "http://127.0.0.1:9/" + String(repeating: "p", count: 280)

    /// 5,000 tasks in two sessions are listed through the library's paging: every task once, in
    /// the daemon's order (session, then task identifier), in pages of at most 1,000; a connection
    /// that names one session lists that session's only.
    @Test func fiveThousandTasksArePagedWholeAndInOrder() async throws {
        try await DaemonFixture.with { fixture in
            try await Self.store(2_500, in: ["a", "b"], at: fixture.paths.queue)
            _ = try await fixture.startDaemon()
            var listed: [TaskCursor] = []
            var pages: [Int] = []
            let connection = try await DaemonLauncher.connect(
                paths: fixture.paths,
                hello: ClientMessage.Hello(
                    app: DaemonFixture.app, session: nil, home: fixture.home.location, attach: false),
                startIfNeeded: false)
            defer { connection.close() }
            try await connection.forEachTaskPage { page in
                pages.append(page.count)
                listed += page.map { TaskCursor(session: $0.session, taskID: $0.taskID) }
            }
            let expected = ["a", "b"].flatMap { session in (1...2_500).map { TaskCursor(session: session, taskID: $0) }
            }
            #expect(listed == expected, "\(listed.count) listed in \(pages.count) pages")
            #expect(pages.count >= 5 && pages.allSatisfy { $0 <= TaskListPage.maximumTasks }, "\(pages)")

            let one = try await DaemonLauncher.connect(
                paths: fixture.paths,
                hello: ClientMessage.Hello(
                    app: DaemonFixture.app, session: "b", home: fixture.home.location, attach: false),
                startIfNeeded: false)
            defer { one.close() }
            var session: [Int] = []
            try await one.forEachTaskPage { page in
                #expect(page.allSatisfy { $0.session == "b" })
                session += page.map(\.taskID)
            }
            #expect(session == Array(1...2_500))
        }
    }

    /// Hostile `list` requests on one connection each get a precise failure, and the connection
    /// goes on: a negative task, another session's cursor, a session that is not a name, a cursor
    /// that is not one, a limit under 1, a task number past any integer, and a request without a
    /// limit whose list is longer than a page. A cursor past the last task is the empty last page;
    /// a huge limit is cut to a page.
    @Test func hostileCursorsAreRefusedPrecisely() async throws {
        try await DaemonFixture.with { fixture in
            try await Self.store(1_500, in: ["a", "b"], at: fixture.paths.queue)
            _ = try await fixture.startDaemon()
            let requests = [
                #"{"type":"list","requestID":1,"limit":10,"cursor":{"session":"a","taskID":-1}}"#,
                #"{"type":"list","requestID":2,"limit":10,"cursor":{"session":"b","taskID":3}}"#,
                #"{"type":"list","requestID":3,"limit":10,"cursor":{"session":"../a","taskID":3}}"#,
                #"{"type":"list","requestID":4,"limit":10,"cursor":"garbage"}"#,
                #"{"type":"list","requestID":5,"limit":0}"#,
                #"{"type":"list","requestID":6,"limit":10,"cursor":{"session":"a","taskID":1e30}}"#,
                #"{"type":"list","requestID":7}"#,
                #"{"type":"list","requestID":8,"limit":10,"cursor":{"session":"a","taskID":9223372036854775807}}"#,
                #"{"type":"list","requestID":9,"limit":9223372036854775807,"cursor":{"session":"a","taskID":2}}"#,
                #"{"type":"status","requestID":10}"#,
            ]
            let bytes = fixture.helloFrame(app: DaemonFixture.app, session: "a") + requests.flatMap(RawClient.frame)
            let socket = fixture.paths.socket
            // A body that is not a JSON object has no keys: every expectation on it fails.
            let answers = await onThread { Self.answers(socket, bytes, count: requests.count) }.map { body in
                (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any] ?? [:]
            }
            #expect(answers.count == requests.count, "\(answers): \(fixture.daemonLog().suffix(2000))")
            func failure(_ index: Int) -> (code: String, message: String)? {
                guard index < answers.count, answers[index]["type"] as? String == "failure" else { return nil }
                return (answers[index]["code"] as? String ?? "", answers[index]["message"] as? String ?? "")
            }
            #expect(failure(0)?.message.contains("not -1") == true, "\(answers.first ?? [:])")
            #expect(failure(1)?.message.contains("the session 'b'") == true)
            #expect(failure(2)?.message.contains("'../a' cannot name a background session") == true)
            #expect(failure(3)?.code == SandboxError.Code.protocolViolation.description)
            #expect(failure(4)?.message.contains("the limit 0") == true)
            #expect(failure(5)?.code == SandboxError.Code.protocolViolation.description)
            #expect(failure(6)?.message.contains("a page at a time") == true)
            let pastEnd = answers.count > 7 ? answers[7] : [:]
            #expect((pastEnd["tasks"] as? [Any])?.isEmpty == true && pastEnd["nextCursor"] == nil, "\(pastEnd)")
            let huge = answers.count > 8 ? answers[8] : [:]
            // Cut by bytes before 1,000 tasks: ~860 bytes a task counted, 256 KiB a page.
            let carried = (huge["tasks"] as? [Any])?.count ?? 0
            #expect(carried > 100 && carried < TaskListPage.maximumTasks, "\(carried)")
            #expect((huge["nextCursor"] as? [String: Any])?["taskID"] as? Int == 2 + carried)
            #expect(answers.last?["type"] as? String == "status")
        }
    }

    /// Sends `bytes` and reads answers until `count` frames other than the welcome have come, the
    /// connection ends or 60 s pass.
    private static func answers(_ path: String, _ bytes: [UInt8], count: Int) -> [String] {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return [] }
        defer { close(fd) }
        guard RawClient.withAddress(path, { connect(fd, $0, $1) == 0 }) else { return [] }
        var time = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        _ = bytes.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var answers: [String] = []
        while answers.count < count {
            let read = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            guard read > 0 else { break }
            received += buffer[..<read]
            answers += RawClient.takeBodies(from: &received).filter { !$0.contains(#""type":"welcome""#) }
        }
        return answers
    }

    /// Stores `count` completed tasks in each of `sessions` in the daemon's queue at `path`, closed
    /// again before the daemon opens it (completed: the daemon resumes none of them).
    static func store(_ count: Int, in sessions: [String], at path: String) async throws {
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        let queue = try EventQueue(path: path)
        let body = try EventQueue.json(
            BackgroundRequest(DownloadRequest(url: try #require(URL(string: url)))), "task")
        for session in sessions {
            let key = SessionKey(app: DaemonFixture.app, session: session)
            queue.writes.commit("store tasks") { db in
                for id in 1...count {
                    try EventQueue.insertTask(db, key, id, url: url, body: body, underlying: nil)
                    try EventQueue.updateTask(
                        db, key, id, .completed(errorCode: nil, bytesWritten: 1, expectedLength: 1))
                }
            }
        }
        await queue.writes.flush()
    }
}
