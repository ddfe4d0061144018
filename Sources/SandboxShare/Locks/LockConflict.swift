import Sandbox

/// The locks that stopped a request, carried as the ``/SandboxCore/SandboxError/underlying`` of a `423 Locked`, so
/// that the response body can list their roots (RFC 4918 §16: `lock-token-submitted` and
/// `no-conflicting-lock` name the locked resources in `DAV:href` elements).
package struct LockConflict: Error, Sendable, Equatable, CustomStringConvertible {
    /// The hrefs of the lock roots, each once, in the order found.
    package var hrefs: [String]

    package init(locks: [ActiveLock]) {
        var hrefs: [String] = []
        for lock in locks {
            let href = lock.root.href(isCollection: lock.rootIsCollection)
            if !hrefs.contains(href) { hrefs.append(href) }
        }
        self.hrefs = hrefs
    }

    package var description: String { "locked by \(hrefs.count) lock(s)" }
}

extension SandboxError {
    /// The hrefs of the locks behind a `423 Locked` (for the body's `DAV:href` elements), or none.
    package var lockRootHrefs: [String] {
        guard case .foreign(let conflict as LockConflict)? = underlying else { return [] }
        return conflict.hrefs
    }
}
