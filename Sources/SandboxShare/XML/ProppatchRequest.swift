import Sandbox
import SandboxStore

/// What a PROPPATCH body asks for (RFC 4918 §9.2, §14.26): properties to set and remove, in
/// document order, which the server applies all or none.
package struct ProppatchRequest: Equatable, Sendable {
    /// One change.
    package enum Operation: Equatable, Sendable {
        /// Set the property to `value`: its element's content as a self-contained XML fragment
        /// (see ``XMLElementNode/contentFragment``), to be written back verbatim.
        case set(PropertyName, value: String)
        /// Remove the property.
        case remove(PropertyName)
    }

    /// The changes, in document order (`set` and `remove` may alternate).
    package var operations: [Operation]

    /// Parses a PROPPATCH body.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` for a body ``XMLDocumentParser`` refuses
    ///   (an empty one included), a root other than `DAV:propertyupdate`, a `set` or `remove`
    ///   without a `DAV:prop`, or no change at all; `too-large` for a body over
    ///   ``SandboxStore/XMLLimits/webDAV``'s size.
    package static func parse(_ body: [UInt8]) throws(SandboxError) -> ProppatchRequest {
        let root = try XMLDocumentParser.parse(body, what: "PROPPATCH")
        guard root.isDAV("propertyupdate") else {
            throw XMLDocumentParser.malformed(
                "PROPPATCH", "has the root '\(root.name.prefix(64))'; send DAV:propertyupdate")
        }
        var operations: [Operation] = []
        for change in root.children where change.isDAV("set") || change.isDAV("remove") {
            guard let prop = change.davChild("prop") else {
                throw XMLDocumentParser.malformed("PROPPATCH", "has a DAV:\(change.name) without a DAV:prop")
            }
            for property in prop.children {
                operations.append(
                    change.name == "set"
                        ? .set(property.propertyName, value: property.contentFragment)
                        : .remove(property.propertyName))
            }
        }
        guard !operations.isEmpty else {
            throw XMLDocumentParser.malformed("PROPPATCH", "sets and removes no property")
        }
        return ProppatchRequest(operations: operations)
    }
}
