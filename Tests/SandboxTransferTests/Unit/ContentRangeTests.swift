import Testing

@testable import SandboxTransfer

@Suite struct ContentRangeTests {
    @Test func parsesByteRanges() {
        #expect(ContentRange("bytes 100-199/1000") == ContentRange(first: 100, last: 199, completeLength: 1000))
        #expect(ContentRange("bytes 0-0/*") == ContentRange(first: 0, last: 0, completeLength: nil))
        #expect(ContentRange("bytes */1000") == ContentRange(first: nil, last: nil, completeLength: 1000))
        #expect(ContentRange("bytes=5-9/10") == ContentRange(first: 5, last: 9, completeLength: 10))
        #expect(ContentRange("5-9/10") == ContentRange(first: 5, last: 9, completeLength: 10))
        #expect(ContentRange("bytes 100-199/1000")?.count == 100)
    }

    @Test(arguments: [
        "", "bytes", "bytes 9-5/10", "bytes 5-10/10", "bytes -5/10", "bytes 1-2", "bytes */*", "bytes +1-2/3",
        "bytes 1-2/x", "items 1-2/3",
    ])
    func rejectsMalformed(value: String) {
        #expect(ContentRange(value) == nil)
    }

    /// Fuzz `content-range/count-overflows-at-int64-max`: `count` (`last - first + 1`) and the end
    /// offset (`last + 1`) of a range ending at `Int64.max` overflow, so it must not parse.
    @Test(arguments: ["bytes 0-9223372036854775807/*", "bytes 9223372036854775807-9223372036854775807/*"])
    func refusesARangeEndingAtInt64Max(value: String) {
        #expect(ContentRange(value) == nil)
        #expect(ContentRange("bytes 0-9223372036854775806/*")?.count == Int64.max)
    }
}
