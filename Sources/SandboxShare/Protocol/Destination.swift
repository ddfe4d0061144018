import Sandbox

/// The `Destination` header of COPY and MOVE (RFC 4918 §10.3).
package enum DestinationHeader {
    /// The item a `Destination` header names on this server.
    ///
    /// - Parameters:
    ///   - value: the header's value: an absolute URI (`http://host:port/path`) or absolute path.
    ///   - allowedAuthorities: this server's `host[:port]` spellings (see ``ShareURI``).
    ///   - scheme: this server's scheme, `http` or `https`.
    /// - Throws: ``SandboxCore/SandboxError/Code/badGateway`` (502, RFC 4918 §9.8.5) for a URI naming another
    ///   server; ``SandboxCore/SandboxError/Code/malformedRequest`` for anything ``ShareURI/resolve(_:allowedAuthorities:scheme:)``
    ///   refuses: user information, a query or fragment, a path ``SharePath`` refuses.
    package static func parse(
        _ value: String, allowedAuthorities: Set<String>, scheme: String = "http"
    ) throws(SandboxError) -> SharePath {
        switch try ShareURI.resolve(value, allowedAuthorities: allowedAuthorities, scheme: scheme) {
        case .local(let path):
            return path
        case .foreign(let uri):
            throw SandboxError(
                .badGateway, "The Destination '\(uri)' names another server; copy and move within this one.")
        }
    }
}

/// The `Overwrite` header of COPY and MOVE (RFC 4918 §10.6).
package enum Overwrite {
    /// Whether the request may replace an existing destination: `T` (or a missing header) is
    /// `true`, `F` is `false`; either case, surrounding spaces ignored.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` for any other value.
    package static func parse(_ value: String?) throws(SandboxError) -> Bool {
        guard let value else { return true }
        switch value.trimmingSpaces {
        case "T", "t": return true
        case "F", "f": return false
        default:
            throw SandboxError(
                .malformedRequest, "The Overwrite header '\(value.prefix(64))' is not T or F; send one of those.")
        }
    }
}
