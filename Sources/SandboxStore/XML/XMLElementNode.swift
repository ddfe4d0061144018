/// One element of a document read by ``XMLDocumentParser``, with its namespace resolved.
package struct XMLElementNode: Sendable, Equatable {
    /// One item of an element's content, in document order.
    package enum Content: Sendable, Equatable {
        /// Character data (CDATA sections included), entities already replaced.
        case text(String)
        /// A child element.
        case element(XMLElementNode)
    }

    /// One attribute, its namespace resolved (empty for an unprefixed attribute).
    package struct Attribute: Sendable, Equatable {
        package var namespace: String
        package var name: String
        package var value: String
    }

    /// The namespace URI; empty for an element in no namespace.
    package var namespace: String
    /// The local name.
    package var name: String
    /// The attributes, sorted by namespace then name; namespace declarations are not among them.
    package var attributes: [Attribute]
    /// The content in document order: text and child elements interleaved.
    package var content: [Content]

    package init(namespace: String, name: String, attributes: [Attribute] = [], content: [Content] = []) {
        self.namespace = namespace
        self.name = name
        self.attributes = attributes
        self.content = content
    }

    /// The child elements, in document order.
    package var children: [XMLElementNode] {
        content.compactMap {
            if case .element(let element) = $0 { element } else { nil }
        }
    }

    /// The text directly inside the element (not its children's), concatenated.
    package var text: String {
        content.reduce(into: "") {
            if case .text(let text) = $1 { $0 += text }
        }
    }

    /// The child elements named `name` in one of `namespaces`, in document order.
    package func children(named name: String, in namespaces: Set<String>) -> [XMLElementNode] {
        children.filter { $0.name == name && namespaces.contains($0.namespace) }
    }
}
