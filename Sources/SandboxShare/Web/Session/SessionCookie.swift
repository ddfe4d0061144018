import HTTPTypes

/// The session cookie: `sandbox_session`, HttpOnly (the page's script never sees it),
/// SameSite=Strict (no other site's page can send it), and sent only to the session's own folder
/// (`Path=/.sandbox/s/<scope>/`, ``SessionFolder``): cookies ignore ports, so with `Path=/` every
/// other service on this host would get it.
///
/// Over HTTPS it is also `Secure` (never sent over plain HTTP). Not `__Host-`: that prefix needs
/// `Path=/` as well.
enum SessionCookie {
    static let name = "sandbox_session"

    /// The `Set-Cookie` value that stores `token` for the folder `scope` (a session cookie: it
    /// ends with the browser); `Secure` when `secure` (the request came over HTTPS).
    static func setting(_ token: String, scope: String, secure: Bool) -> String {
        "\(name)=\(token); Path=\(SessionFolder.path(of: scope)); HttpOnly; SameSite=Strict"
            + (secure ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that removes the cookie of the folder `scope`.
    static func clearing(scope: String, secure: Bool) -> String {
        "\(name)=; Path=\(SessionFolder.path(of: scope)); HttpOnly; SameSite=Strict; Max-Age=0"
            + (secure ? "; Secure" : "")
    }

    /// The session token in the request's `Cookie` fields, if any: the last `sandbox_session`
    /// pair of well-formed `name=value` pairs (RFC 6265 §5.4); anything malformed is skipped.
    static func token(in fields: HTTPFields) -> String? {
        var found: String?
        for value in fields[values: .cookie] {
            for pair in value.split(separator: ";") {
                let trimmed = pair.drop { $0 == " " }
                guard let equals = trimmed.firstIndex(of: "=") else { continue }
                if trimmed[..<equals] == Substring(name) {
                    let token = trimmed[trimmed.index(after: equals)...]
                    if token.count == 64, token.utf8.allSatisfy(Self.isHex) { found = String(token) }
                }
            }
        }
        return found
    }

    private static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
    }
}
