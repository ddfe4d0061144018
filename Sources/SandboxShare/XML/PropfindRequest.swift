import Sandbox
import SandboxStore

/// What a PROPFIND body asks for (RFC 4918 §9.1, §14.20).
package enum PropfindRequest: Equatable, Sendable {
    /// `allprop`: every dead property and the live ones RFC 4918 defines, plus those `include`
    /// names.
    case allProperties(include: [PropertyName])
    /// `propname`: the names of every property, without values.
    case propertyNames
    /// `prop`: these properties, in the order asked.
    case properties([PropertyName])

    /// Parses a PROPFIND body; an empty one (or only white space) asks for `allprop`.
    ///
    /// Elements of other namespaces inside `propfind` are ignored, as RFC 4918 §17 requires.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` for a body ``XMLDocumentParser`` refuses, a
    ///   root other than `DAV:propfind`, or a `propfind` with none (or more than one) of
    ///   `allprop`, `propname` and `prop`; `too-large` for a body over
    ///   ``SandboxStore/XMLLimits/webDAV``'s size.
    package static func parse(_ body: [UInt8]) throws(SandboxError) -> PropfindRequest {
        guard body.contains(where: { !isXMLSpace($0) }) else { return .allProperties(include: []) }
        let root = try XMLDocumentParser.parse(body, what: "PROPFIND")
        guard root.isDAV("propfind") else {
            throw XMLDocumentParser.malformed("PROPFIND", "has the root '\(root.name.prefix(64))'; send DAV:propfind")
        }
        let kinds = root.children.filter { $0.isDAV("allprop") || $0.isDAV("propname") || $0.isDAV("prop") }
        guard kinds.count == 1, let kind = kinds.first else {
            throw XMLDocumentParser.malformed(
                "PROPFIND", "does not hold exactly one of DAV:allprop, DAV:propname and DAV:prop")
        }
        switch kind.name {
        case "allprop":
            return .allProperties(include: root.davChild("include")?.children.map(\.propertyName) ?? [])
        case "propname":
            return .propertyNames
        default:
            return .properties(kind.children.map(\.propertyName))
        }
    }

    /// XML's white space: space, tab, line feed, carriage return.
    static func isXMLSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
