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

@Suite("Hex integers")
struct HexIntegerTests {
    @Test("integers: padded, either case, as String(radix: 16) wrote them")
    func integers() {
        #expect(Hex.string(of: UInt8(0)) == "0")
        #expect(Hex.string(of: UInt16(0x1F), minimumDigits: 4) == "001f")
        #expect(Hex.string(of: UInt64.max, uppercase: true) == "FFFFFFFFFFFFFFFF")
        for value in [UInt32(0), 1, 0xA, 0xFF, 0x1234, 0xDEAD_BEEF, .max] {
            #expect(Hex.string(of: value) == String(value, radix: 16))
            #expect(Hex.integer(String(value, radix: 16).utf8, as: UInt32.self) == value)
        }
    }

    @Test("integers from outside: no sign, no prefix, no overflow, no empty")
    func hostileIntegers() {
        #expect(Hex.integer("".utf8, as: UInt32.self) == nil)
        #expect(Hex.integer("+1f".utf8, as: UInt32.self) == nil, "String(radix:) took a sign")
        #expect(Hex.integer("-1".utf8, as: UInt32.self) == nil)
        #expect(Hex.integer("0x1f".utf8, as: UInt32.self) == nil)
        #expect(Hex.integer("1_0".utf8, as: UInt32.self) == nil)
        #expect(Hex.integer("100000000".utf8, as: UInt32.self) == nil, "one digit past UInt32")
        #expect(Hex.integer("0000000000ffffffff".utf8, as: UInt32.self) == 0xFFFF_FFFF, "leading zeros fit")
        #expect(Hex.integer("10FFFF".utf8, as: UInt32.self) == 0x10FFFF)
    }
}

@Suite("Random tokens")
struct RandomTokenTests {
    @Test("lowercase base 36, at most 13 characters, not repeated")
    func tokens() {
        let tokens = (0..<1_000).map { _ in RandomToken.make() }
        for token in tokens {
            #expect((1...13).contains(token.utf8.count))
            #expect(token.utf8.allSatisfy { (48...57).contains($0) || (97...122).contains($0) }, "\(token)")
        }
        #expect(Set(tokens).count == tokens.count)
    }

    /// The digits written one by one are the ones ``Hex/string(of:minimumDigits:uppercase:)``
    /// spells, unpadded, for zero, one digit, and every width up to all 64 bits.
    @Test func digitsOneByOneAreTheUnpaddedString() {
        var values: [UInt64] = [0, 1, 0xF, 0x10, 0xABC, UInt64.max, 1 << 63]
        for bits in 1..<64 { values.append((1 << UInt64(bits)) - 1) }
        for value in values {
            var written: [UInt8] = []
            Hex.forEachDigit(of: value) { written.append($0) }
            #expect(String(decoding: written, as: UTF8.self) == Hex.string(of: value), "\(value)")
        }
    }
}
