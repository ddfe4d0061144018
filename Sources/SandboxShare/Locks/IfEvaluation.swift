/// What an `If` header's conditions are tested against for one item: its entity tag and the
/// tokens of the locks that cover it.
package struct ResourceState: Sendable, Equatable {
    /// The item's strong entity tag with its quotes, or `nil` when it has none (a missing item,
    /// or a collection).
    package var etag: String?
    /// The tokens of the live locks covering the item.
    package var lockTokens: Set<String>

    package init(etag: String?, lockTokens: Set<String>) {
        self.etag = etag
        self.lockTokens = lockTokens
    }
}

/// Whether an `If` header holds (RFC 4918 §10.4).
package enum IfEvaluation {
    /// `true` if any list of `header` holds. A list holds if every one of its conditions does, on
    /// its item: the request's for an untagged list, the tagged one otherwise; a list tagged with
    /// another server's URI never holds. A state token holds if it is the token of a lock covering
    /// the item (`DAV:no-lock` never is); an entity tag holds if it is strongly equal to the item's
    /// (a weak `W/` tag never is); `Not` inverts either.
    ///
    /// - Parameters:
    ///   - requestPath: the item of the request, for untagged lists.
    ///   - state: the state of an item; called once per list.
    package static func evaluate(
        _ header: IfHeader, requestPath: SharePath, state: (SharePath) -> ResourceState
    ) -> Bool {
        header.lists.contains { list in
            let path: SharePath
            switch list.resource {
            case .untagged: path = requestPath
            case .path(let tagged): path = tagged
            case .foreign: return false
            }
            let resource = state(path)
            return list.conditions.allSatisfy { holds($0, on: resource) }
        }
    }

    private static func holds(_ condition: IfHeader.Condition, on resource: ResourceState) -> Bool {
        let matches =
            switch condition.kind {
            case .stateToken(let token): resource.lockTokens.contains(token)
            case .entityTag(let tag): isStrong(tag) && resource.etag.map { isStrong($0) && $0 == tag } == true
            }
        return matches != condition.negated
    }

    private static func isStrong(_ tag: String) -> Bool { !tag.hasPrefix("W/") }
}
