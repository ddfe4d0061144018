import Sandbox

/// `Content-Disposition` values the server sends (RFC 6266).
enum ContentDisposition {
    /// `attachment` with the file's name: an ASCII fallback in `filename` (other characters and
    /// quotes replaced by `_`) and the exact name, percent-encoded UTF-8, in `filename*` (RFC 8187).
    static func attachment(_ name: String) -> String {
        let fallback = String(
            name.unicodeScalars.map { scalar -> Character in
                scalar.isASCII && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" && scalar.value != 0x7F
                    ? Character(scalar) : "_"
            })
        // RFC 8187 `attr-char`: ALPHA, DIGIT and `!#$&+-.^_`|~`.
        let encoded = PercentEncoding.encode(name) { byte in
            PercentEncoding.isUnreserved(byte) || "!#$&+^`|".utf8.contains(byte)
        }
        return "attachment; filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }
}
