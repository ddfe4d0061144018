import SandboxCore

/// A `Content-Disposition` header (RFC 6266), parsed for the file name a server suggests.
///
/// `filename*` (RFC 8187: `charset'language'percent-encoded`, UTF-8 or ISO-8859-1) wins over
/// `filename` (a token or a quoted string); parameter names are case-insensitive. The names are
/// returned as sent: ``SuggestedFilename`` sanitizes them.
public struct ContentDisposition: Sendable, Hashable {
    /// `attachment`, `inline`, … in lower case.
    public var type: String
    /// The decoded `filename*` parameter, if present and decodable.
    public var extendedFilename: String?
    /// The `filename` parameter, if present.
    public var plainFilename: String?

    /// The name to use: `filename*` first, then `filename`.
    public var filename: String? { extendedFilename ?? plainFilename }

    /// Parses a header value; `nil` when it has no disposition type.
    public init?(_ value: String) {
        var scanner = HeaderScanner(value)
        guard let type = scanner.token(), !type.isEmpty else { return nil }
        self.type = type.lowercased()
        while scanner.skip(";") {
            guard let name = scanner.token()?.lowercased(), scanner.skip("=") else {
                scanner.skipToNextParameter()
                continue
            }
            let parameterValue = scanner.peekIsQuote ? scanner.quotedString() : scanner.token()
            guard let parameterValue else {
                scanner.skipToNextParameter()
                continue
            }
            switch name {
            case "filename*": if extendedFilename == nil { extendedFilename = Self.decodeExtendedValue(parameterValue) }
            case "filename": if plainFilename == nil { plainFilename = parameterValue }
            default: break
            }
        }
    }

    /// Decodes an RFC 8187 `ext-value`: `UTF-8'en'%e2%82%ac%20rates`. `nil` for an unknown charset,
    /// a bad escape or bytes that are not valid in the charset.
    static func decodeExtendedValue(_ value: String) -> String? {
        let parts = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var bytes: [UInt8] = []
        var utf8 = parts[2].utf8[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "%") {
                guard let high = utf8.popFirst().flatMap(Hex.value(of:)),
                    let low = utf8.popFirst().flatMap(Hex.value(of:))
                else {
                    return nil
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte)
            }
        }
        switch parts[0].lowercased() {
        case "utf-8": return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1": return String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
        default: return nil
        }
    }
}

/// Reads tokens, quoted strings and separators of a header value (RFC 9110 §5.6).
struct HeaderScanner {
    private var rest: Substring

    init(_ text: String) { rest = text[...] }

    /// Whether a quoted string comes next (after spaces).
    var peekIsQuote: Bool {
        rest.drop { $0 == " " || $0 == "\t" }.first == "\""
    }

    private mutating func trimLeadingSpaces() {
        while let first = rest.first, first == " " || first == "\t" { rest = rest.dropFirst() }
    }

    /// Consumes `character` after optional spaces; `false` (consuming only the spaces) otherwise.
    mutating func skip(_ character: Character) -> Bool {
        trimLeadingSpaces()
        guard rest.first == character else { return false }
        rest = rest.dropFirst()
        return true
    }

    /// A token: everything up to a separator, trimmed. `nil` at the end of the text.
    mutating func token() -> String? {
        trimLeadingSpaces()
        guard !rest.isEmpty else { return nil }
        let end = rest.firstIndex { $0 == ";" || $0 == "=" || $0 == "," } ?? rest.endIndex
        let token = rest[..<end].trimmingSpaces()
        rest = rest[end...]
        return String(token)
    }

    /// A quoted string with `\` escapes; an unterminated one takes the rest of the text.
    mutating func quotedString() -> String? {
        trimLeadingSpaces()
        guard rest.first == "\"" else { return nil }
        rest = rest.dropFirst()
        var value = ""
        while let character = rest.popFirst() {
            switch character {
            case "\"": return value
            case "\\": if let escaped = rest.popFirst() { value.append(escaped) }
            default: value.append(character)
            }
        }
        return value
    }

    /// Skips a malformed parameter up to the next `;`.
    mutating func skipToNextParameter() {
        let end = rest.firstIndex(of: ";") ?? rest.endIndex
        rest = rest[end...]
    }
}
