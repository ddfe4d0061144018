/// Escaping for the XML this server writes, so that no input (a file name, a property value, a
/// token) can make a response ill-formed.
package enum XMLText {
    /// `text` made safe as XML 1.0 character data or an attribute value (either quote):
    /// `& < > " '` become entity references; tab, line feed and carriage return become character
    /// references (so they survive attribute-value and line-end normalization); characters XML 1.0
    /// cannot carry at all (other C0 controls, U+FFFE, U+FFFF) become U+FFFD.
    package static func escape(_ text: some StringProtocol) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            case "\t": result += "&#9;"
            case "\n": result += "&#10;"
            case "\r": result += "&#13;"
            default:
                result.unicodeScalars.append(isAllowed(scalar) ? scalar : "\u{FFFD}")
            }
        }
        return result
    }

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
        guard let first = name.unicodeScalars.first, isNameStart(first) else { return false }
        return name.unicodeScalars.dropFirst().allSatisfy {
            isNameStart($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "." || $0 == "\u{B7}"
                || (0x300...0x36F).contains($0.value) || (0x203F...0x2040).contains($0.value)
        }
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
