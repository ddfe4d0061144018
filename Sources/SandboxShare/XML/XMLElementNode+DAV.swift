import SandboxStore

extension XMLElementNode {
    /// Whether this is the element `name` in the `DAV:` namespace.
    package func isDAV(_ name: String) -> Bool { namespace == "DAV:" && self.name == name }

    /// The first child that is the `DAV:` element `name`.
    package func davChild(_ name: String) -> XMLElementNode? { children.first { $0.isDAV(name) } }

    /// The element's name as a property name.
    package var propertyName: PropertyName { PropertyName(namespace, name) }
}
