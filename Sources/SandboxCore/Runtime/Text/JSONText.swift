/// JSON text written by hand where Foundation's encoder costs too much (a record written per
/// download, a node per file of a backup), byte for byte as `JSONEncoder` writes it.
package enum JSONText {
    /// `utf8` as a JSON string: `"`, `\` and `/` escaped, the control characters as `\b`, `\f`,
    /// `\n`, `\r`, `\t` or `\u00xx` (lowercase), every other byte as it is.
    package static func appendString(_ utf8: some Sequence<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
                bytes.append(UInt8(ascii: "\\"))
                bytes.append(byte)
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0..<0x20:
                bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                Hex.append(byte, to: &bytes)
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
