import Sandbox
import SandboxStore

/// What a LOCK body asks for (RFC 4918 §9.10, §14.11): a new write lock of a scope, with an
/// optional owner.
package struct LockRequest: Equatable, Sendable {
    /// Exclusive or shared.
    package var scope: LockScope
    /// The `DAV:owner` element's content as a self-contained XML fragment (see
    /// ``XMLElementNode/contentFragment``), to be written back verbatim in `lockdiscovery`.
    package var owner: String?

    package init(scope: LockScope, owner: String?) {
        self.scope = scope
        self.owner = owner
    }

    /// Parses a LOCK body; an empty one (or only white space) is `nil`, a refresh of an existing
    /// lock.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` for a body ``XMLDocumentParser`` refuses, a
    ///   root other than `DAV:lockinfo`, a missing `lockscope` or one that is not exactly one of
    ///   `exclusive` and `shared`, a missing `locktype` or one other than `write`;
    ///   `too-large` for a body over ``SandboxStore/XMLLimits/webDAV``'s size.
    package static func parse(_ body: [UInt8]) throws(SandboxError) -> LockRequest? {
        guard body.contains(where: { !PropfindRequest.isXMLSpace($0) }) else { return nil }
        let root = try XMLDocumentParser.parse(body, what: "LOCK")
        guard root.isDAV("lockinfo") else {
            throw XMLDocumentParser.malformed("LOCK", "has the root '\(root.name.prefix(64))'; send DAV:lockinfo")
        }
        let scopes = root.davChild("lockscope")?.children.filter { $0.namespace == "DAV:" } ?? []
        guard scopes.count == 1, let scope = LockScope(rawValue: scopes[0].name) else {
            throw XMLDocumentParser.malformed("LOCK", "has no DAV:lockscope holding DAV:exclusive or DAV:shared")
        }
        let types = root.davChild("locktype")?.children ?? []
        guard types.count == 1, types[0].isDAV("write") else {
            throw XMLDocumentParser.malformed("LOCK", "has no DAV:locktype holding DAV:write, the only type served")
        }
        return LockRequest(scope: scope, owner: root.davChild("owner")?.contentFragment)
    }
}
