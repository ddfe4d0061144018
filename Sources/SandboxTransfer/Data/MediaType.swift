/// A `Content-Type` value (RFC 9110 §8.3.1): `type/subtype` and its parameters, e.g.
/// `text/html; charset="utf-8"`.
public struct MediaType: Sendable, Hashable, CustomStringConvertible {
    /// The top-level type in lower case: `text`, `image`, `application`, …
    public var type: String
    /// The subtype in lower case: `html`, `png`, `vnd.api+json`, …
    public var subtype: String
    /// The parameters by lower-case name, with quoted values unquoted (the first of a repeated name).
    public var parameters: [String: String]

    /// Parses a header value; `nil` without a `type/subtype`. Malformed parameters are skipped.
    public init?(_ value: String) {
        var scanner = HeaderScanner(value)
        guard let essence = scanner.token() else { return nil }
        let parts = essence.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, HeaderSyntax.isToken(String(parts[0])), HeaderSyntax.isToken(String(parts[1])) else {
            return nil
        }
        type = parts[0].lowercased()
        subtype = parts[1].lowercased()
        parameters = [:]
        while scanner.skip(";") {
            guard let name = scanner.token()?.lowercased(), !name.isEmpty, scanner.skip("=") else {
                scanner.skipToNextParameter()
                continue
            }
            guard let parameter = scanner.peekIsQuote ? scanner.quotedString() : scanner.token() else {
                scanner.skipToNextParameter()
                continue
            }
            if parameters[name] == nil { parameters[name] = parameter }
        }
    }

    /// `type/subtype`, without parameters.
    public var description: String { "\(type)/\(subtype)" }

    /// The `charset` parameter, trimmed, as sent (look it up with ``TextCharset/init(label:)``).
    public var charset: String? { parameters["charset"].map { String(Substring($0).trimmingSpaces()) } }

    /// Whether the body is meant to be read as text: `text/*`, JSON, XML, JavaScript and form
    /// data (also as a `+json` or `+xml` suffix), or any type with a `charset` parameter.
    public var isText: Bool {
        if type == "text" || charset != nil { return true }
        if subtype.hasSuffix("+json") || subtype.hasSuffix("+xml") { return true }
        return type == "application" && Self.textualApplicationTypes.contains(subtype)
    }

    private static let textualApplicationTypes: Set<String> = [
        "json", "xml", "javascript", "ecmascript", "x-www-form-urlencoded", "x-javascript", "xhtml+xml",
    ]
}
