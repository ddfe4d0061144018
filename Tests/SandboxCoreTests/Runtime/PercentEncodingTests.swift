import Testing

@testable import SandboxCore

@Suite struct PercentEncodingTests {
    @Test func unreservedBytesStayAndTheRestAreEncodedUpperCase() {
        #expect(PercentEncoding.encode("aZ09-._~") == "aZ09-._~")
        #expect(PercentEncoding.encode("a b/c?#%") == "a%20b%2Fc%3F%23%25")
        #expect(PercentEncoding.encode("café") == "caf%C3%A9")
        #expect(PercentEncoding.encode("\u{0}\u{7F}") == "%00%7F")
    }

    @Test func aCallerChoosesWhatToKeep() {
        let keepingSlash = PercentEncoding.encode("a/b c") {
            PercentEncoding.isUnreserved($0) || $0 == UInt8(ascii: "/")
        }
        #expect(keepingSlash == "a/b%20c")
        var bytes = Array("/".utf8)
        PercentEncoding.append("x y", to: &bytes) { _ in false }
        #expect(String(decoding: bytes, as: UTF8.self) == "/%78%20%79")
    }
}
