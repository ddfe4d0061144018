import Foundation
import FoundationXML

/// The `XMLParser` delegate behind ``XMLDocumentParser``: builds the element tree, resolves
/// attribute prefixes, and stops the parser at the first thing it refuses.
final class XMLTreeBuilder: NSObject, XMLParserDelegate {
    private let limits: XMLLimits
    /// The finished root element.
    private(set) var root: XMLElementNode?
    /// Why the body was refused, beyond what the parser itself reports.
    private(set) var problem: String?

    /// The open elements, outermost first.
    private var stack: [XMLElementNode] = []
    /// The prefix bindings of each open element, outermost first, and those for the next one.
    private var scopes: [[String: String]] = []
    private var pendingBindings: [String: String] = [:]
    private var elementCount = 0
    /// The character data of the innermost open element since its last child, appended in place
    /// (the parser reports text in many pieces: one per entity reference).
    private var pendingText = ""

    init(limits: XMLLimits) {
        self.limits = limits
    }

    func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
        guard prefix.isEmpty || !namespaceURI.isEmpty else {
            return refuse(parser, "binds the prefix '\(prefix.prefix(32))' to an empty namespace")
        }
        pendingBindings[prefix] = namespaceURI
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        elementCount += 1
        guard stack.count < limits.maximumDepth else {
            return refuse(parser, "nests elements over \(limits.maximumDepth) deep")
        }
        guard elementCount <= limits.maximumElements else {
            return refuse(parser, "holds over \(limits.maximumElements) elements")
        }
        flushText()
        scopes.append(pendingBindings)
        pendingBindings = [:]
        let namespace = namespaceURI ?? ""
        if namespace.isEmpty, let qualifiedName, qualifiedName.contains(":") {
            return refuse(parser, "uses the undeclared prefix of '\(qualifiedName.prefix(64))'")
        }
        var resolved: [XMLElementNode.Attribute] = []
        for (key, value) in attributes {
            let parts = key.split(separator: ":", maxSplits: 1)
            if parts.count == 2 {
                let prefix = String(parts[0])
                guard let uri = prefix == "xml" ? "http://www.w3.org/XML/1998/namespace" : binding(of: prefix) else {
                    return refuse(parser, "uses the undeclared prefix of the attribute '\(key.prefix(64))'")
                }
                resolved.append(.init(namespace: uri, name: String(parts[1]), value: value))
            } else {
                resolved.append(.init(namespace: "", name: key, value: value))
            }
        }
        resolved.sort { ($0.namespace, $0.name) < ($1.namespace, $1.name) }
        stack.append(XMLElementNode(namespace: namespace, name: elementName, attributes: resolved))
    }

    func parser(
        _ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?
    ) {
        flushText()
        guard let element = stack.popLast() else { return }
        scopes.removeLast()
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].content.append(.element(element))
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        appendText(string, parser)
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        guard let text = String(validating: block, as: UTF8.self) else {
            return refuse(parser, "holds a CDATA section that is not UTF-8")
        }
        appendText(text, parser)
    }

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) {
        // libxml2 reports some errors without failing the parse: namespace errors (an empty or
        // undeclared prefix, a duplicate attribute: codes 200–205) and content after the root
        // element (5). Every error makes the body malformed here; only warnings, such as a
        // relative namespace URI, are let through.
        let code = (parseError as NSError).code
        if !Self.warnings.contains(code) {
            refuse(parser, "is not well-formed XML (parser error \(code))")
        }
    }

    /// libxml2's `XML_WAR_*` codes (`xmlerror.h`): undeclared entity (in a DTD, which is refused
    /// anyway), catalog PI, unknown version, `xml:lang` value, namespace URI not valid or relative,
    /// `xml:space` value, namespace column, entity redefined.
    private static let warnings: Set<Int> = [27, 93, 97, 98, 99, 100, 102, 106, 107]

    private func appendText(_ text: String, _ parser: XMLParser) {
        guard !stack.isEmpty else { return }
        guard pendingText.utf8.count + text.utf8.count <= limits.maximumTextSize else {
            return refuse(parser, "holds a run of text over \(limits.maximumTextSize) bytes")
        }
        pendingText += text
    }

    private func flushText() {
        guard !pendingText.isEmpty, !stack.isEmpty else { return }
        stack[stack.count - 1].content.append(.text(pendingText))
        pendingText = ""
    }

    private func binding(of prefix: String) -> String? {
        if let uri = pendingBindings[prefix] { return uri }
        for scope in scopes.reversed() {
            if let uri = scope[prefix] { return uri }
        }
        return nil
    }

    private func refuse(_ parser: XMLParser, _ reason: String) {
        if problem == nil { problem = reason }
        parser.abortParsing()
    }
}
