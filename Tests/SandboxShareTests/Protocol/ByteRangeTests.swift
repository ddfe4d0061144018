import Sandbox
import Testing

@testable import SandboxShare

@Suite struct ByteRangeTests {
    @Test(arguments: [
        ("bytes=0-4", Int64(10), RangeSelection.partial(0...4)), ("bytes=-5", 10, .partial(5...9)),
        ("bytes=5-", 10, .partial(5...9)), ("bytes=0-99", 10, .partial(0...9)), ("bytes=9-9", 10, .partial(9...9)),
        ("Bytes=2-3", 10, .partial(2...3)), ("bytes=-50", 10, .partial(0...9)), ("bytes=0-0", 1, .partial(0...0)),
        ("bytes= 1-2 ", 10, .partial(1...2)), ("bytes=1-2,", 10, .partial(1...2)),
        ("bytes=0-99999999999999999999999", 10, .partial(0...9)),
        ("bytes=-99999999999999999999999", 10, .partial(0...9)),
        ("bytes=0-9223372036854775807", Int64.max, .partial(0...Int64.max - 1)),
    ])
    func selectsOneRange(header: String, size: Int64, selection: RangeSelection) throws {
        #expect(try RangeSelection.select(header, size: size) == selection)
    }

    @Test(arguments: [
        nil, "", "bytes", "bytes=", "bytes=-", "bytes=a-b", "bytes=5-4", "bytes=1-2-3", "bytes=0x1-2",
        "items=0-4", "bytes=0-1,3-4", "bytes=0-1, -2", "bytes=+1-2", "bytes=1 -2", "bytes=١-٢", "bytes =0-1",
        "bytes=-+5", "=0-1",
    ])
    func ignoresInvalidOrSeveralRanges(header: String?) throws {
        #expect(try RangeSelection.select(header, size: 10) == .whole)
    }

    @Test(arguments: [
        ("bytes=10-", Int64(10)), ("bytes=10-20", 10), ("bytes=-0", 10), ("bytes=0-", 0), ("bytes=-5", 0),
        ("bytes=0-0", 0), ("bytes=99999999999999999999999-", 10), ("bytes=9223372036854775807-", Int64.max),
    ])
    func refusesRangesPastTheEnd(header: String, size: Int64) {
        #expect {
            try RangeSelection.select(header, size: size)
        } throws: { error in
            (error as? SandboxError)?.code == .rangeNotSatisfiable && (error as? SandboxError)?.code.httpStatus == 416
        }
    }
}
