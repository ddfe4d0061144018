import Foundation
import Testing

@testable import SandboxTransfer

/// The daemon's `tasks` answer keeps the wire format it had before foreground and background
/// listings became one type (``DownloadTaskSummary``): an app and a `sandboxd` of different
/// builds still understand each other, and both map it to the same listing.
@Suite struct TaskListingWireTests {
    /// A `tasks` answer as `sandboxd` encoded it before the listing types were merged (taken
    /// from that build's encoder: `BackgroundTaskInfo`'s keys, sorted).
    static let fixture = [
        #"{"requestID":7,"tasks":[{"bytesWritten":4096,"expectedLength":16384,"#,
        #""session":"s","state":"running","taskID":1,"url":"http:\/\/127.0.0.1:8080\/a.bin"},"#,
        #"{"bytesWritten":10,"expectedLength":10,"path":"Library\/Caches\/b.bin","#,
        #""session":"s","state":"completed","taskID":2,"url":"http:\/\/127.0.0.1:8080\/b.bin"},"#,
        #"{"bytesWritten":0,"errorCode":"cancelled","#,
        #""session":"s","state":"completed","taskID":3,"url":"http:\/\/h\/c"},"#,
        #"{"bytesWritten":0,"session":"other","state":"waiting","taskID":4,"url":"http:\/\/h\/d"},"#,
        #"{"bytesWritten":7,"errorCode":"http-status","#,
        #""session":"other","state":"completed","taskID":5,"url":"http:\/\/h\/e"}],"type":"tasks"}"#,
    ].joined()

    static let wire: [DownloadTaskSummary.Wire] = [
        .init(
            session: "s", taskID: 1, url: "http://127.0.0.1:8080/a.bin", state: .running, bytesWritten: 4096,
            expectedLength: 16384, path: nil, errorCode: nil),
        .init(
            session: "s", taskID: 2, url: "http://127.0.0.1:8080/b.bin", state: .completed, bytesWritten: 10,
            expectedLength: 10, path: "Library/Caches/b.bin", errorCode: nil),
        .init(
            session: "s", taskID: 3, url: "http://h/c", state: .completed, bytesWritten: 0, expectedLength: nil,
            path: nil, errorCode: "cancelled"),
        .init(
            session: "other", taskID: 4, url: "http://h/d", state: .waiting, bytesWritten: 0, expectedLength: nil,
            path: nil, errorCode: nil),
        .init(
            session: "other", taskID: 5, url: "http://h/e", state: .completed, bytesWritten: 7, expectedLength: nil,
            path: nil, errorCode: "http-status"),
    ]

    @Test func decodesTheWireFormatOfEarlierDaemons() throws {
        let message = try WireCoding.decode(DaemonMessage.self, from: Array(Self.fixture.utf8))
        #expect(message.type == .tasks && message.requestID == 7)
        let tasks = try #require(message.tasks)
        #expect(tasks == Self.wire)
        let listed = tasks.map(DownloadTaskSummary.init)
        #expect(listed.map(\.state) == [.running, .completed, .cancelled, .waiting, .failed])
        #expect(listed.map(\.sessionIdentifier) == ["s", "s", "s", "other", "other"])
        #expect(listed.map(\.taskIdentifier) == [1, 2, 3, 4, 5])
        #expect(listed.map(\.bytesOnDisk) == [4096, 10, 0, 0, 7])
        #expect(listed.map(\.expectedLength) == [16384, 10, nil, nil, nil])
        #expect(listed[1].path == "Library/Caches/b.bin")
        #expect(listed.map(\.errorCode) == [nil, nil, "cancelled", nil, "http-status"])
        #expect(listed.allSatisfy { $0.isBackground && $0.errorMessage == nil && $0.updatedAt == nil })
    }

    /// What this build's daemon sends is byte for byte what an earlier app reads.
    @Test func encodesTheWireFormatOfEarlierDaemons() throws {
        let framed = try WireCoding.encode(DaemonMessage.tasks(Self.wire, requestID: 7))
        #expect(String(decoding: framed.dropFirst(4), as: UTF8.self) == Self.fixture)
    }

    /// One state set: a foreground listing's finished states are the ones a daemon's completed
    /// task maps to.
    @Test func finishedStatesAreTheSameForBothKinds() {
        #expect(DownloadTaskSummary.State.allCases.filter(\.isFinished) == [.completed, .cancelled, .failed])
    }
}
