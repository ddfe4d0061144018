/// What RFC 9110 allows in a header line, to check values a parser hands on to a request.
enum HeaderText {
    /// A field name: one or more `tchar` (§5.6.2).
    static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { byte in
                (0x21...0x7E).contains(byte) && !Array("\"(),/:;<=>?@[\\]{}".utf8).contains(byte)
            }
    }

    /// A field value: visible characters, spaces and tabs, `obs-text`; never CR, LF or NUL (§5.5),
    /// which would end the header and start another.
    static func isFieldValue(_ text: String) -> Bool {
        text.utf8.allSatisfy { byte in byte == 0x09 || byte == 0x20 || (0x21...0x7E).contains(byte) || byte >= 0x80 }
    }

    /// Headers that carry credentials, in lower case.
    static let credentials: Set<String> = ["authorization", "proxy-authorization", "cookie"]
}
