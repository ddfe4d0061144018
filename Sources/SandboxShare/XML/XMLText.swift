/// Escaping for the XML this server writes, so that no input (a file name, a property value, a
/// token) can make a response ill-formed.
package enum XMLText {
    /// `text` made safe as XML 1.0 character data or an attribute value (either quote):
    /// `& < > " '` become entity references; tab, line feed and carriage return become character
    /// references (so they survive attribute-value and line-end normalization); characters XML 1.0
    /// cannot carry at all (other C0 controls, U+FFFE, U+FFFF) become U+FFFD.
    package static func escape(_ text: some StringProtocol) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        appendEscaped(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ``escape(_:)`` appended to `bytes` as UTF-8, a byte at a time (a string's UTF-8 is valid:
    /// only ASCII bytes and the encodings of U+FFFE and U+FFFF need looking at).
    package static func appendEscaped(_ text: some StringProtocol, to bytes: inout [UInt8]) {
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            switch byte {
            case 0x26: bytes += "&amp;".utf8
            case 0x3C: bytes += "&lt;".utf8
            case 0x3E: bytes += "&gt;".utf8
            case 0x22: bytes += "&quot;".utf8
            case 0x27: bytes += "&apos;".utf8
            case 0x09: bytes += "&#9;".utf8
            case 0x0A: bytes += "&#10;".utf8
            case 0x0D: bytes += "&#13;".utf8
            case 0x00..<0x20: bytes += replacement
            case 0xEF:
                // U+FFFE and U+FFFF are EF BF BE and EF BF BF; any other three bytes pass.
                guard let second = utf8.next(), let third = utf8.next() else { return }
                if second == 0xBF && (third == 0xBE || third == 0xBF) {
                    bytes += replacement
                } else {
                    bytes += [byte, second, third]
                }
            default: bytes.append(byte)
            }
        }
    }

    /// U+FFFD, for a character XML cannot carry.
    private static let replacement: [UInt8] = [0xEF, 0xBF, 0xBD]

    /// Whether XML 1.0 can carry `scalar` (its `Char` production; Swift strings hold no
    /// surrogates).
    package static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: true
        case 0x0..<0x20: false
        case 0xFFFE, 0xFFFF: false
        default: true
        }
    }

    /// Whether `name` is an XML `NCName` (a local name or prefix: no colon), so that it can be
    /// written as an element's name. Checks ASCII strictly and lets any non-ASCII letter through
    /// as XML 1.0 fifth edition does, except the characters it excludes.
    package static func isNCName(_ name: some StringProtocol) -> Bool {
        // Every property name of a listing is checked, most of them ASCII: their bytes suffice.
        if let verdict = asciiNCName(name.utf8) { return verdict }
        guard let first = name.unicodeScalars.first, isNameStart(first) else { return false }
        return name.unicodeScalars.dropFirst().allSatisfy {
            isNameStart($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." || $0 == "\u{B7}"
                || (0x300...0x36F).contains($0.value) || (0x203F...0x2040).contains($0.value)
        }
    }

    /// ``isNCName(_:)`` of a name all of whose bytes are ASCII, byte by byte; `nil` for any other.
    private static func asciiNCName(_ utf8: some Collection<UInt8>) -> Bool? {
        var isFirst = true
        var valid = true
        for byte in utf8 {
            guard byte < 0x80 else { return nil }
            let start = (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x5F
            if isFirst {
                valid = start
                isFirst = false
            } else if !(start || (0x30...0x39).contains(byte) || byte == 0x2D || byte == 0x2E) {
                valid = false
            }
        }
        return isFirst ? false : valid
    }

    /// Appends `text`'s UTF-8 to `bytes` in one copy (a native string's bytes are contiguous;
    /// `+= text.utf8` goes through the generic sequence path, a byte at a time).
    package static func appendUTF8(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    private static func isNameStart(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A, 0x5F: true  // A-Z a-z _
        case 0xC0...0xD6, 0xD8...0xF6, 0xF8...0x2FF, 0x370...0x37D, 0x37F...0x1FFF, 0x200C...0x200D,
            0x2070...0x218F, 0x2C00...0x2FEF, 0x3001...0xD7FF, 0xF900...0xFDCF, 0xFDF0...0xFFFD,
            0x10000...0xEFFFF:
            true
        default: false
        }
    }
}
