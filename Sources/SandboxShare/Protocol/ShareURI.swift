import Sandbox

/// A URI a client sent to name an item of this share (`Destination`, a tagged `If` list): an
/// absolute path, or an absolute `http`/`https` URI whose authority is this server's.
package enum ShareURI: Sendable, Equatable {
    /// An item of this share.
    case local(SharePath)
    /// A URI naming another server (another authority or scheme), as sent (at most 64 characters).
    case foreign(String)

    /// Resolves `value` (surrounding spaces ignored) against this server's authorities.
    ///
    /// An absolute URI's scheme and authority compare case-insensitively; the scheme must be the
    /// server's own, `scheme` (`http`, or `https` under TLS: the port speaks nothing else), and its
    /// default port (`:80`, `:443`) is elided before looking the authority up in
    /// `allowedAuthorities` (which hold `host` or `host:port`, any case). A URI with another scheme
    /// or authority is ``foreign(_:)``. The path then follows ``SharePath/init(requestPath:)``.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` for something that is neither an absolute
    ///   path nor an absolute URI, user information (`user@host`), a query or fragment, or a path
    ///   ``SharePath`` refuses.
    package static func resolve(
        _ value: some StringProtocol, allowedAuthorities: Set<String>, scheme: String = "http"
    ) throws(SandboxError)
        -> ShareURI
    {
        let text = String(value).trimmingSpaces
        guard !text.contains(where: { $0 == "?" || $0 == "#" }) else {
            throw refusal(text, "has a query or fragment; send the item's path alone")
        }
        if text.hasPrefix("/") {
            guard !text.hasPrefix("//") else { throw refusal(text, "has no scheme; send http://host/path or /path") }
            return .local(try SharePath(requestPath: text))
        }
        guard let colon = text.firstIndex(of: ":"), isScheme(text[..<colon]) else {
            throw refusal(text, "is neither an absolute path nor an absolute URI; send http://host/path or /path")
        }
        let ownScheme = scheme
        let scheme = text[..<colon].lowercased()
        let rest = text[text.index(after: colon)...]
        guard scheme == ownScheme else { return .foreign(String(text.prefix(64))) }
        guard rest.hasPrefix("//") else {
            throw refusal(text, "has no authority after its scheme; send http://host/path")
        }
        let afterSlashes = rest.dropFirst(2)
        let authorityEnd = afterSlashes.firstIndex(of: "/") ?? afterSlashes.endIndex
        let authority = afterSlashes[..<authorityEnd]
        guard !authority.contains("@") else {
            throw refusal(text, "carries user information ('user@host'); send the URI without it")
        }
        guard !authority.isEmpty else { throw refusal(text, "has an empty host; send http://host/path") }
        let normalized = normalizedAuthority(authority, scheme: scheme)
        guard allowedAuthorities.contains(where: { normalizedAuthority($0[...], scheme: scheme) == normalized }) else {
            return .foreign(String(text.prefix(64)))
        }
        let path = afterSlashes[authorityEnd...]
        return .local(try SharePath(requestPath: path.isEmpty ? "/" : path))
    }

    /// `host[:port]` lowercased, with the scheme's default port (or an empty one) elided.
    static func normalizedAuthority(_ authority: Substring, scheme: String) -> String {
        var text = authority.lowercased()
        let defaultPort = scheme == "https" ? ":443" : ":80"
        // The port follows the last ':' past any IPv6 literal's ']'.
        let hostEnd = text.lastIndex(of: "]") ?? text.startIndex
        if let colon = text[hostEnd...].lastIndex(of: ":") {
            let port = text[colon...]
            if port == ":" || port == defaultPort { text.removeSubrange(colon...) }
        }
        return text
    }

    /// RFC 3986 `scheme`: a letter, then letters, digits, `+`, `-`, `.`.
    private static func isScheme(_ text: Substring) -> Bool {
        guard let first = text.first, first.isASCII, first.isLetter else { return false }
        return text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || "+-.".contains($0)) }
    }

    private static func refusal(_ text: some StringProtocol, _ problem: String) -> SandboxError {
        SandboxError(.malformedRequest, "The URI '\(text.prefix(64))' \(problem).")
    }
}
