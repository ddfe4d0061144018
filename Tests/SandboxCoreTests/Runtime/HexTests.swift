import SandboxCore
import Testing

@Suite("Hex")
struct HexTests {
    @Test("every byte encodes as two digits, lowercase or uppercase, and decodes back")
    func roundTrip() {
        let all = (0...255).map(UInt8.init)
        let lower = Hex.string(all)
        #expect(lower.utf8.count == 512)
        #expect(lower.hasPrefix("000102030405060708090a0b0c0d0e0f10"))
        #expect(lower.hasSuffix("f0f1f2f3f4f5f6f7f8f9fafbfcfdfeff"))
        #expect(Hex.string(all, uppercase: true) == lower.uppercased())
        #expect(Hex.bytes(lower.utf8) == all)
        #expect(Hex.bytes(lower.uppercased().utf8) == all)
        #expect(Hex.string([UInt8]()) == "")
        #expect(Hex.bytes("".utf8) == [])
    }

    @Test("the old encoders' output: String(format: \"%02x\") and String(radix: 16) padded")
    func matchesTheOldEncoders() {
        for byte in (0...255).map(UInt8.init) {
            let padded = String(byte, radix: 16)
            #expect(Hex.string([byte]) == (byte < 16 ? "0" + padded : padded))
            let upper = String(byte, radix: 16, uppercase: true)
            #expect(Hex.string([byte], uppercase: true) == (upper.count == 1 ? "0" + upper : upper))
        }
    }

    @Test("odd counts and non-digits (including non-ASCII bytes) do not decode")
    func hostileDigits() {
        #expect(Hex.bytes("abc".utf8) == nil)
        #expect(Hex.bytes("0g".utf8) == nil)
        #expect(Hex.bytes(" 0".utf8) == nil)
        #expect(Hex.bytes([0xEF, 0xBC, 0x91, 0x31]) == nil, "a fullwidth digit is not a hex digit")
        #expect(Hex.value(of: UInt8(ascii: "F")) == 15)
        #expect(Hex.value(of: UInt8(ascii: "G")) == nil)
        #expect(Hex.value(of: 0xB2) == nil)
        for byte in (0...255).map(UInt8.init) where byte >= 0x80 { #expect(Hex.value(of: byte) == nil) }
    }

    @Test("isLowercase: exactly count lowercase digits")
    func lowercaseIDs() {
        #expect(Hex.isLowercase(String(repeating: "a", count: 64), count: 64))
        #expect(!Hex.isLowercase(String(repeating: "A", count: 64), count: 64))
        #expect(!Hex.isLowercase(String(repeating: "a", count: 63), count: 64))
        #expect(!Hex.isLowercase(String(repeating: "g", count: 64), count: 64))
    }
}
