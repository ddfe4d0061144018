/// Percent-encoding (RFC 3986 §2.1): the bytes of a text's UTF-8 that a caller's set does not keep
/// become `%XX`, upper-case hex. One encoder for every user: SQLite URI file names, SigV4's
/// canonical request, WebDAV `href`s, `Content-Disposition`'s `filename*`.
package enum PercentEncoding {
    /// RFC 3986 `unreserved`: `A–Z a–z 0–9 - . _ ~`.
    package static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    /// Appends `text`'s UTF-8 to `bytes`, each byte `keeps` refuses as `%XX`.
    package static func append(_ text: String, to bytes: inout [UInt8], keeping keeps: (UInt8) -> Bool) {
        for byte in text.utf8 {
            if keeps(byte) {
                bytes.append(byte)
            } else {
                appendEncoded(byte, to: &bytes)
            }
        }
    }

    /// Appends `byte` as `%XX` (uppercase digits), for a writer that decides byte by byte.
    package static func appendEncoded(_ byte: UInt8, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "%"))
        bytes.append(Self.digits[Int(byte >> 4)])
        bytes.append(Self.digits[Int(byte & 0xF)])
    }

    /// `text` percent-encoded: every byte but those `keeps` keeps (by default the unreserved ones).
    package static func encode(_ text: String, keeping keeps: (UInt8) -> Bool = isUnreserved) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        append(text, to: &bytes, keeping: keeps)
        return String(decoding: bytes, as: UTF8.self)
    }

    private static let digits = Array("0123456789ABCDEF".utf8)
}
