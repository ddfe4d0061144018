/// The grammar of request header fields (RFC 9110 §5), checked on UTF-8 bytes: text that does not
/// follow it could end one header and start another (CR LF) when sent.
enum HeaderSyntax {
    /// Headers that carry credentials, in lower case: never kept in resume data.
    static let credentials: Set<String> = ["authorization", "proxy-authorization", "cookie"]

    /// Whether `name` is a field name: one or more `tchar` (§5.6.2).
    static func isToken(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy(isTokenByte)
    }

    /// Whether `value` is a field value: visible ASCII, spaces, tabs and `obs-text`; never CR, LF,
    /// NUL or another control character (§5.5).
    static func isFieldValue(_ value: String) -> Bool {
        value.utf8.allSatisfy { $0 == 0x09 || $0 == 0x20 || (0x21...0x7E).contains($0) || $0 >= 0x80 }
    }

    /// Whether `name` is one of the ``credentials`` headers (in any case).
    static func isCredentials(_ name: String) -> Bool {
        credentials.contains(name.lowercased())
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (0x21...0x7E).contains(byte) && !delimiters.contains(byte)
    }

    private static let delimiters = Set("\"(),/:;<=>?@[\\]{}".utf8)
}
