/// A `207 Multi-Status` body (RFC 4918 §13), built response by response.
///
/// Every piece of text is escaped with ``XMLText/escape(_:)``; property values are XML fragments
/// written verbatim (they come from ``XMLElementNode/contentFragment`` or the server's own live
/// properties). A property whose name is not an XML name cannot be written and is left out, so
/// the body is always well-formed.
package struct Multistatus: Sendable {
    private var xml = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n" + #"<D:multistatus xmlns:D="DAV:">"#

    package init() {}

    /// Adds the `DAV:response` of `href` with its properties grouped by status.
    package mutating func add(href: String, propstats: [Propstat]) {
        xml += "<D:response><D:href>\(XMLText.escape(href))</D:href>"
        for propstat in propstats {
            xml += "<D:propstat><D:prop>"
            for (name, value) in propstat.properties {
                Self.appendProperty(name, value: value, to: &xml)
            }
            xml += "</D:prop><D:status>\(HTTPStatusLine.line(propstat.status))</D:status>"
            if let error = propstat.error { Self.appendError(error, to: &xml) }
            xml += "</D:propstat>"
        }
        xml += "</D:response>"
    }

    /// Adds the `DAV:response` of `href` with a status of its own (e.g. a member a DELETE could
    /// not remove), and the `DAV:` precondition element that explains it, if any.
    package mutating func add(href: String, status: Int, error: String? = nil) {
        xml += "<D:response><D:href>\(XMLText.escape(href))</D:href>"
        xml += "<D:status>\(HTTPStatusLine.line(status))</D:status>"
        if let error { Self.appendError(error, to: &xml) }
        xml += "</D:response>"
    }

    /// The body, UTF-8.
    package var bytes: [UInt8] { Array((xml + Self.closing).utf8) }

    /// The text added since the last call (the prologue first), UTF-8, for a body sent as it is
    /// built; then ``closingBytes``. Memory stays flat however many responses a listing has.
    package mutating func takeBytes() -> [UInt8] {
        defer { xml = "" }
        return Array(xml.utf8)
    }

    /// The end of a body sent with ``takeBytes()``.
    package static let closingBytes = Array(closing.utf8)
    private static let closing = "</D:multistatus>\n"

    /// A `DAV:error` body naming a precondition, with the hrefs it concerns, e.g.
    /// `<D:error xmlns:D="DAV:"><D:lock-token-submitted><D:href>/a</D:href></D:lock-token-submitted></D:error>`.
    package static func errorBody(condition: String, hrefs: [String]) -> [UInt8] {
        var xml = #"<?xml version="1.0" encoding="utf-8"?>"# + "\n" + #"<D:error xmlns:D="DAV:">"#
        let condition = XMLText.isNCName(condition) ? condition : "error"
        if hrefs.isEmpty {
            xml += "<D:\(condition)/>"
        } else {
            xml += "<D:\(condition)>"
            for href in hrefs { xml += "<D:href>\(XMLText.escape(href))</D:href>" }
            xml += "</D:\(condition)>"
        }
        return Array((xml + "</D:error>\n").utf8)
    }

    /// `<D:name>value</D:name>` for `DAV:`, `<ns0:name xmlns:ns0="ns">` for another namespace,
    /// `<name xmlns="">` for none; nothing for a name XML cannot spell.
    private static func appendProperty(_ name: PropertyName, value: String?, to xml: inout String) {
        guard XMLText.isNCName(name.name) else { return }
        let (open, close): (String, String)
        switch name.namespace {
        case "DAV:": (open, close) = ("D:\(name.name)", "D:\(name.name)")
        case "": (open, close) = ("\(name.name) xmlns=\"\"", name.name)
        default:
            let declaration = "xmlns:ns0=\"\(XMLText.escape(name.namespace))\""
            (open, close) = ("ns0:\(name.name) \(declaration)", "ns0:\(name.name)")
        }
        if let value, !value.isEmpty {
            xml += "<\(open)>\(value)</\(close)>"
        } else {
            xml += "<\(open)/>"
        }
    }

    private static func appendError(_ condition: String, to xml: inout String) {
        guard XMLText.isNCName(condition) else { return }
        xml += "<D:error><D:\(condition)/></D:error>"
    }
}
