import Foundation
import Testing

@testable import SandboxTransfer

/// The hand-written checkpoint encoding (``TaskRecord/jsonBytes()``) against `JSONEncoder`, the
/// reference it replaces: the same bytes, and the decoder reads back the same record.
@Suite struct TaskRecordJSONTests {
    static let date = Date(timeIntervalSince1970: 1_764_034_056.75)

    static func record(
        phase: TaskRecord.Phase, validator: Validator? = nil, headers: [String: String] = [:],
        full: Bool = false, url: String = "https://example.com/a/b.bin?x=1&y=\"2\""
    ) -> TaskRecord {
        TaskRecord(
            id: 42, originalURL: url, finalURL: full ? "https://cdn.example.com/b.bin" : nil, headers: headers,
            expectedDigest: full ? try? ExpectedDigest(.sha256, hex: String(repeating: "ab", count: 32)) : nil,
            destination: full ? DownloadDestination(folder: .documents, filename: "r\u{e9}sum\u{e9}.pdf") : nil,
            phase: phase, validator: validator, expectedLength: full ? 16_384 : nil, partialName: "42-abc.partial",
            bytesOnDisk: 16_384, suggestedFilename: full ? "b \"1\".bin" : nil,
            lastRestartReason: full ? .validatorChanged : nil, createdAt: date,
            updatedAt: date.addingTimeInterval(86_399))
    }

    static let records: [TaskRecord] = [
        record(phase: .active),
        record(phase: .finishing(name: "b.bin"), validator: .entityTag("\"v/1\""), full: true),
        record(
            phase: .completed(path: "Library/Caches/b.bin"), validator: .lastModified("Tue, 15 Nov 1994 08:12:31 GMT")),
        record(phase: .completed(path: nil), full: true),
        record(
            phase: .failed(code: "network", message: "cut\nshort\t\u{1}\\ \u{7f} \u{1F600}", resumable: true),
            headers: ["X-Token": "a/b", "Accept": "*/*"], full: true),
        record(phase: .failed(code: "cancelled", message: "", resumable: false), url: "http://h/x"),
    ]

    @Test(arguments: records) func writesWhatJSONEncoderWrites(_ record: TaskRecord) throws {
        let written = try #require(record.jsonBytes())
        #expect(
            String(decoding: written, as: UTF8.self)
                == String(decoding: try record.encodedByJSONEncoder(), as: UTF8.self))
        let decoded = try TaskRecord.decoding(written, path: "test")
        var expected = record
        expected.createdAt = Date(timeIntervalSince1970: record.createdAt.timeIntervalSince1970.rounded(.down))
        expected.updatedAt = Date(timeIntervalSince1970: record.updatedAt.timeIntervalSince1970.rounded(.down))
        #expect(decoded == expected)
    }

    @Test(arguments: [0, 951_782_400, 4_107_542_399, 253_402_300_799] as [TimeInterval])
    func writesDatesAsTheEncoderDoes(_ seconds: TimeInterval) throws {
        var record = Self.record(phase: .active)
        record.createdAt = Date(timeIntervalSince1970: seconds)
        let written = try #require(record.jsonBytes())
        #expect(written == (try record.encodedByJSONEncoder()))
    }

    @Test func leavesDatesOutsideItsRangeToTheEncoder() throws {
        var record = Self.record(phase: .active)
        record.updatedAt = Date(timeIntervalSince1970: -1)
        #expect(record.jsonBytes() == nil)
        #expect(try record.encoded() == record.encodedByJSONEncoder())
    }
}
