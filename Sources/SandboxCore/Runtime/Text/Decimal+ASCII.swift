/// Integers as ASCII decimal digits appended to a byte buffer, as `String(value)` spells them,
/// without making the `String`: for writers of text formats (JSON, XML) in hot loops.
package enum ASCIIDecimal {
    /// Appends `value` in decimal.
    package static func append(_ value: UInt64, to bytes: inout [UInt8]) {
        guard value > 0 else {
            bytes.append(UInt8(ascii: "0"))
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var rest = value
            var start = digits.count
            while rest > 0 {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest % 10)
                rest /= 10
            }
            bytes.append(contentsOf: digits[start...])
        }
    }

    /// Appends `value` in decimal, with a `-` when it is negative.
    package static func append(_ value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        append(value.magnitude, to: &bytes)
    }
}
