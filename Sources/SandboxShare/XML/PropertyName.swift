/// A WebDAV property's name: an XML namespace and a local name (RFC 4918 §4), e.g. `DAV:`
/// `getetag`, or `http://example.com/ns` `author` for a dead property a client set.
package struct PropertyName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The namespace URI; empty for a name in no namespace.
    package var namespace: String
    /// The local name.
    package var name: String

    package init(_ namespace: String, _ name: String) {
        self.namespace = namespace
        self.name = name
    }

    /// A property in the `DAV:` namespace.
    package static func dav(_ name: String) -> PropertyName { PropertyName("DAV:", name) }

    package static func < (lhs: PropertyName, rhs: PropertyName) -> Bool {
        (lhs.namespace, lhs.name) < (rhs.namespace, rhs.name)
    }

    /// Clark notation: `{namespace}name`.
    package var description: String { "{\(namespace)}\(name)" }
}
