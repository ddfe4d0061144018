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

    /// Appends `name` percent-encoded as one RFC 3986 path segment.
    package static func appendEncodedSegment(_ name: String, to bytes: inout [UInt8]) {
        PercentEncoding.append(name, to: &bytes, keeping: isSegmentCharacter)
    }

    /// RFC 3986 `pchar` less `pct-encoded`: unreserved, sub-delims, `:` and `@`.
    private static func isSegmentCharacter(_ byte: UInt8) -> Bool {
        PercentEncoding.isUnreserved(byte) || "!$&'()*+,;=:@".utf8.contains(byte)
    }
}
