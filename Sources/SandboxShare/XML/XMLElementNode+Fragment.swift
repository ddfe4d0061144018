import SandboxStore

extension XMLElementNode {
    /// The element's content as a self-contained XML fragment: text escaped, each child element
    /// written with its namespace declared on itself (`<ns0:foo xmlns:ns0="http://ns">t</ns0:foo>`,
    /// `<foo xmlns="">` for no namespace), so it can be put back inside any document verbatim and
    /// mean the same. This is how a PROPPATCH value or a LOCK owner is kept.
    package var contentFragment: String {
        var xml = ""
        Self.write(content, into: &xml)
        return xml
    }

    /// The element itself as a self-contained fragment (see ``contentFragment``).
    package var fragment: String {
        var xml = ""
        writeElement(into: &xml)
        return xml
    }

    private static func write(_ content: [Content], into xml: inout String) {
        for item in content {
            switch item {
            case .text(let text): xml += XMLText.escape(text)
            case .element(let element): element.writeElement(into: &xml)
            }
        }
    }

    private func writeElement(into xml: inout String) {
        let qualifiedName = namespace.isEmpty ? name : "ns0:" + name
        xml += "<" + qualifiedName
        xml += namespace.isEmpty ? " xmlns=\"\"" : " xmlns:ns0=\"\(XMLText.escape(namespace))\""
        var prefixes: [String: String] = [namespace: "ns0"]
        for attribute in attributes {
            var attributeName = attribute.name
            if attribute.namespace == Self.xmlNamespace {
                attributeName = "xml:" + attribute.name
            } else if !attribute.namespace.isEmpty {
                let prefix = prefixes[attribute.namespace] ?? "ns\(prefixes.count)"
                if prefixes[attribute.namespace] == nil {
                    prefixes[attribute.namespace] = prefix
                    xml += " xmlns:\(prefix)=\"\(XMLText.escape(attribute.namespace))\""
                }
                attributeName = prefix + ":" + attribute.name
            }
            xml += " \(attributeName)=\"\(XMLText.escape(attribute.value))\""
        }
        guard !content.isEmpty else {
            xml += "/>"
            return
        }
        xml += ">"
        Self.write(content, into: &xml)
        xml += "</" + qualifiedName + ">"
    }

    /// The namespace the `xml:` prefix is bound to, always.
    static let xmlNamespace = "http://www.w3.org/XML/1998/namespace"
}
