/// Hexadecimal text for bytes (digests, ids, percent-encoding) and back, in plain byte arithmetic:
/// no `String(format:)` (which goes through Foundation's formatter) and no per-byte `String`.
package enum Hex {
    private static let lowercaseDigits = Array("0123456789abcdef".utf8)
    private static let uppercaseDigits = Array("0123456789ABCDEF".utf8)

    /// `bytes` as two hexadecimal digits a byte, lowercase unless `uppercase`.
    package static func string(_ bytes: some Sequence<UInt8>, uppercase: Bool = false) -> String {
        let digits = uppercase ? uppercaseDigits : lowercaseDigits
        var text: [UInt8] = []
        text.reserveCapacity(bytes.underestimatedCount * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Appends `byte` as two lowercase hexadecimal digits.
    package static func append(_ byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(lowercaseDigits[Int(byte >> 4)])
        bytes.append(lowercaseDigits[Int(byte & 0x0F)])
    }

    /// The value of one lowercase ASCII hexadecimal digit, or `nil` for any other byte (an
    /// uppercase digit too: for forms that only ever write lowercase).
    package static func lowercaseValue(of digit: UInt8) -> UInt8? {
        (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(digit) ? nil : value(of: digit)
    }

    /// The value of one ASCII hexadecimal digit (either case), or `nil` for any other byte.
    package static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The bytes that hexadecimal `digits` (either case, two a byte) spell, or `nil` for an odd
    /// count or any byte that is not a hexadecimal digit.
    package static func bytes(_ digits: some Collection<UInt8>) -> [UInt8]? {
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var high: UInt8?
        for digit in digits {
            guard let nibble = value(of: digit) else { return nil }
            if let first = high {
                bytes.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }

    /// `value` in hexadecimal, lowercase unless `uppercase`, zero-padded to at least
    /// `minimumDigits` digits (`0x1F` with 4 is `001f`; with the default 1, no padding).
    package static func string(
        of value: some FixedWidthInteger & UnsignedInteger, minimumDigits: Int = 1, uppercase: Bool = false
    ) -> String {
        let digits = uppercase ? uppercaseDigits : lowercaseDigits
        var text: [UInt8] = []
        var rest = value
        repeat {
            text.append(digits[Int(rest & 0x0F)])
            rest >>= 4
        } while rest != 0
        while text.count < minimumDigits { text.append(UInt8(ascii: "0")) }
        return String(decoding: text.reversed(), as: UTF8.self)
    }

    /// `value`'s lowercase hexadecimal digits, most significant first, unpadded (`0` for zero),
    /// each given to `body`: ``string(of:minimumDigits:uppercase:)`` for a writer that fills a
    /// buffer of its own (an entity tag), with no string made.
    package static func forEachDigit(of value: UInt64, _ body: (UInt8) -> Void) {
        let count = max(1, (UInt64.bitWidth - value.leadingZeroBitCount + 3) / 4)
        for shift in stride(from: (count - 1) * 4, through: 0, by: -4) {
            body(lowercaseDigits[Int(truncatingIfNeeded: value >> UInt64(shift)) & 0x0F])
        }
    }

    /// The integer hexadecimal `digits` (either case, no sign, no `0x`) spell, or `nil` when there
    /// is no digit, a byte is not a hexadecimal digit, or the value does not fit `Value`.
    package static func integer<Value: FixedWidthInteger & UnsignedInteger>(
        _ digits: some Collection<UInt8>, as _: Value.Type = Value.self
    ) -> Value? {
        guard !digits.isEmpty else { return nil }
        var value: Value = 0
        for digit in digits {
            guard let nibble = self.value(of: digit), value >> (Value.bitWidth - 4) == 0 else { return nil }
            value = value << 4 | Value(nibble)
        }
        return value
    }

    /// Whether `text` is exactly `count` lowercase hexadecimal digits (a digest or an id as this
    /// package writes them).
    package static func isLowercase(_ text: String, count: Int) -> Bool {
        text.utf8.count == count && text.utf8.allSatisfy { lowercaseDigits.contains($0) }
    }
}
