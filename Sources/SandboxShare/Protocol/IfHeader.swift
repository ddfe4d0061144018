import Sandbox

/// The `If` header (RFC 4918 §10.4): lists of conditions on state tokens and entity tags, each list
/// untagged (about the request's item) or tagged with the item it is about. Parsing only; whether
/// the conditions hold is for the lock manager to decide.
package struct IfHeader: Sendable, Equatable {
    /// The lists, in the order sent. The header holds if any list does.
    package var lists: [List]

    /// One parenthesized list: it holds if every condition does.
    package struct List: Sendable, Equatable {
        /// The item the list is about.
        package var resource: Tag
        /// The conditions, in the order sent; never empty.
        package var conditions: [Condition]
    }

    /// The item a list is about.
    package enum Tag: Sendable, Equatable {
        /// The request's item (a No-tag-list).
        case untagged
        /// An item of this share, named by a Resource-Tag.
        case path(SharePath)
        /// A Resource-Tag naming another server: no item here matches it.
        case foreign
    }

    /// One condition, `Not` or not.
    package struct Condition: Sendable, Equatable {
        /// Whether the condition was written with `Not`.
        package var negated: Bool
        /// What the condition tests.
        package var kind: Kind
    }

    /// What a condition tests.
    package enum Kind: Sendable, Equatable {
        /// A state token: the Coded-URL's URI without its `<>`, e.g. `opaquelocktoken:…` or
        /// `DAV:no-lock`.
        case stateToken(String)
        /// An entity tag as sent, with its quotes and any `W/` prefix: `"abc"`, `W/"abc"`.
        case entityTag(String)
    }

    /// Longest header accepted, in bytes.
    package static let maximumLength = 64 * 1024

    /// Every state token the header names, negated or not: the tokens the client submitted.
    package var submittedTokens: Set<String> {
        var tokens: Set<String> = []
        for list in lists {
            for condition in list.conditions {
                if case .stateToken(let token) = condition.kind { tokens.insert(token) }
            }
        }
        return tokens
    }

    /// Parses an `If` header's value.
    ///
    /// - Parameters:
    ///   - value: the header's value.
    ///   - allowedAuthorities: this server's `host[:port]` spellings, to resolve Resource-Tags as
    ///     ``ShareURI/resolve(_:allowedAuthorities:scheme:)`` does (another server's is ``Tag/foreign``).
    ///   - scheme: this server's scheme, `http` or `https`.
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` for a header over 64 KiB, no list, an empty
    ///   list, untagged and tagged lists mixed, an unbalanced `<>`, `()` or `[]`, a malformed entity
    ///   tag, anything else outside the grammar, or a Resource-Tag whose path is refused.
    package static func parse(
        _ value: String, allowedAuthorities: Set<String>, scheme: String = "http"
    ) throws(SandboxError) -> IfHeader {
        guard value.utf8.count <= maximumLength else {
            throw SandboxError(
                .malformedRequest, "The If header is over \(maximumLength) bytes; submit fewer conditions.")
        }
        var parser = IfHeaderParser(value, allowedAuthorities: allowedAuthorities, scheme: scheme)
        return IfHeader(lists: try parser.parseLists())
    }
}
