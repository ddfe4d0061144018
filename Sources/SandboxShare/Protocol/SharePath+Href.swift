import Sandbox

extension SharePath {
    /// The path as a URL path for a response's `href`: `/` and each name percent-encoded as an
    /// RFC 3986 path segment (everything but unreserved characters and `!$&'()*+,;=:@` is
    /// encoded, so `%` becomes `%25`), with a trailing `/` for a collection. The root is `/`.
    package func href(isCollection: Bool) -> String {
        guard !names.isEmpty else { return "/" }
        var bytes: [UInt8] = []
        for name in names {
            bytes.append(UInt8(ascii: "/"))
            Self.appendEncodedSegment(name, to: &bytes)
        }
        if isCollection { bytes.append(UInt8(ascii: "/")) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `XMLText.escape(href(isCollection:))` appended to `bytes` in one pass, with no string
    /// made: a PROPFIND writes one an item. Of what a segment keeps, only `&` and `'` need
    /// escaping in XML text.
    package func appendEscapedHref(isCollection: Bool, to bytes: inout [UInt8]) {
        guard !names.isEmpty else {
            bytes.append(UInt8(ascii: "/"))
            return
        }
        for name in names {
            bytes.append(UInt8(ascii: "/"))
            for byte in name.utf8 {
                switch byte {
                case UInt8(ascii: "&"): bytes += "&amp;".utf8
                case UInt8(ascii: "'"): bytes += "&apos;".utf8
                case _ where Self.isSegmentCharacter(byte): bytes.append(byte)
                default: PercentEncoding.appendEncoded(byte, to: &bytes)
                }
            }
        }
        if isCollection { bytes.append(UInt8(ascii: "/")) }
    }

    /// Appends `name` percent-encoded as one RFC 3986 path segment.
    package static func appendEncodedSegment(_ name: String, to bytes: inout [UInt8]) {
        PercentEncoding.append(name, to: &bytes, keeping: isSegmentCharacter)
    }

    /// RFC 3986 `pchar` less `pct-encoded`: unreserved, sub-delims, `:` and `@` (one switch: it is
    /// asked of every byte of every href a listing writes).
    private static func isSegmentCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "!"), UInt8(ascii: "$"), UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("),
            UInt8(ascii: ")"), UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"),
            UInt8(ascii: "="), UInt8(ascii: ":"), UInt8(ascii: "@"):
            true
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default: false
        }
    }
}
