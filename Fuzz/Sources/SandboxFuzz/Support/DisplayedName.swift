/// Reads a ``FileName``'s display back to bytes: `\\` is a backslash, `\xHH` the byte HH, anything
/// else its UTF-8. When this gives back every name's bytes, no two names display alike.
enum DisplayedName {
    static func bytes(of display: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        var rest = Substring(display).utf8[...]
        while let byte = rest.popFirst() {
            guard byte == UInt8(ascii: "\\") else {
                bytes.append(byte)
                continue
            }
            switch rest.popFirst() {
            case UInt8(ascii: "\\"): bytes.append(byte)
            case UInt8(ascii: "x"):
                guard let high = rest.popFirst().flatMap(hexValue), let low = rest.popFirst().flatMap(hexValue) else {
                    return nil
                }
                bytes.append(high << 4 | low)
            default: return nil
            }
        }
        return bytes
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
