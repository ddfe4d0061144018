/// A `207 Multi-Status` body (RFC 4918 §13), built response by response straight into bytes.
///
/// Every piece of text is escaped with ``XMLText/appendEscaped(_:to:)``; property values are XML
/// fragments written verbatim (they come from ``XMLElementNode/contentFragment`` or the server's
/// own live properties). A property whose name is not an XML name cannot be written and is left
/// out, so the body is always well-formed.
///
/// A PROPFIND writes its responses piece by piece (``beginResponse(href:)``,
/// ``appendProperty(_:value:)``, ``endPropstat(status:)``, ``endResponse()``) into one buffer it
/// reuses, and sends it every ``flushSize`` bytes (``takeBuffer()``).
package struct Multistatus: Sendable {
    private var xml: [UInt8]

    package init() {
        xml = []
        xml.reserveCapacity(Self.flushSize + Self.flushSize / 4)
        xml += Self.prologue
    }

    /// The bytes past which a streamed body is sent: one buffer's worth, about 64 KiB.
    package static let flushSize = 64 * 1024

    /// The bytes written and not yet taken.
    package var count: Int { xml.count }

    /// Drops what was written after the first `count` bytes (a response left half written).
    package mutating func truncate(to count: Int) {
        if count < xml.count { xml.removeSubrange(count...) }
    }

    /// Adds the `DAV:response` of `href` with its properties grouped by status.
    package mutating func add(href: String, propstats: [Propstat]) {
        beginResponse(href: href)
        for propstat in propstats {
            beginPropstat()
            for (name, value) in propstat.properties {
                appendProperty(name) { xml in
                    if let value { xml += value.utf8 }
                    return true
                }
            }
            endPropstat(status: propstat.status, error: propstat.error)
        }
        endResponse()
    }

    /// Adds the `DAV:response` of `href` with a status of its own (e.g. a member a DELETE could
    /// not remove), and the `DAV:` precondition element that explains it, if any.
    package mutating func add(href: String, status: Int, error: String? = nil) {
        beginResponse(href: href)
        xml += "<D:status>".utf8
        xml += HTTPStatusLine.line(status).utf8
        xml += "</D:status>".utf8
        if let error { Self.appendError(error, to: &xml) }
        endResponse()
    }

    /// Opens the `DAV:response` of `href`.
    package mutating func beginResponse(href: String) {
        xml += "<D:response><D:href>".utf8
        XMLText.appendEscaped(href, to: &xml)
        xml += "</D:href>".utf8
    }

    /// Opens the `DAV:response` of the item at `path`, its href written in place
    /// (``SharePath/appendEscapedHref(isCollection:to:)``).
    package mutating func beginResponse(path: SharePath, isCollection: Bool) {
        xml += Self.responseStart
        path.appendEscapedHref(isCollection: isCollection, to: &xml)
        xml += Self.hrefEnd
    }

    /// Opens a `DAV:propstat` and its `DAV:prop`.
    package mutating func beginPropstat() { xml += Self.propstatStart }

    /// Closes a `DAV:propstat` with the status of its properties.
    package mutating func endPropstat(status: Int, error: String? = nil) {
        if status == 200, error == nil {
            xml += Self.okPropstatEnd
            return
        }
        xml += "</D:prop><D:status>".utf8
        xml += HTTPStatusLine.line(status).utf8
        xml += "</D:status>".utf8
        if let error { Self.appendError(error, to: &xml) }
        xml += "</D:propstat>".utf8
    }

    /// Closes a `DAV:response`.
    package mutating func endResponse() { xml += Self.responseEnd }

    /// Adds the property `name` with the value `value` writes (an XML fragment; nothing: an empty
    /// element), as its ``PropertyTag`` spells it. Nothing is added when `value` returns `false`
    /// (the item has no such property) or for a name XML cannot spell.
    ///
    /// - Returns: what `value` returned.
    @discardableResult
    package mutating func appendProperty(
        _ name: PropertyName, value: (inout [UInt8]) -> Bool
    ) -> Bool {
        guard let tag = PropertyTag(name) else {
            var unwritten: [UInt8] = []
            return value(&unwritten)
        }
        return appendProperty(tag, value: value)
    }

    /// Adds a property as the look-up by name does, with its tag encoded beforehand.
    ///
    /// - Returns: what `value` returned.
    @discardableResult
    package mutating func appendProperty(_ tag: PropertyTag, value: (inout [UInt8]) -> Bool) -> Bool {
        let start = xml.count
        xml += tag.open
        let content = xml.count
        guard value(&xml) else {
            truncate(to: start)
            return false
        }
        if xml.count == content {
            truncate(to: start)
            xml += tag.empty
        } else {
            xml += tag.close
        }
        return true
    }

    /// The body, UTF-8.
    package var bytes: [UInt8] { xml + Self.closingBytes }

    /// The bytes added since the last call (the prologue first), for a body sent as it is built;
    /// then ``closingBytes``. The buffer is kept for what follows, so memory stays flat however
    /// many responses a listing has.
    package mutating func takeBytes() -> [UInt8] {
        defer { xml.removeAll(keepingCapacity: true) }
        return xml
    }

    /// The end of a body sent with ``takeBytes()``.
    package static let closingBytes = Array("</D:multistatus>\n".utf8)
    private static let prologue = Array(
        (#"<?xml version="1.0" encoding="utf-8"?>"# + "\n" + #"<D:multistatus xmlns:D="DAV:">"#).utf8)
    private static let okPropstatEnd = Array(
        ("</D:prop><D:status>" + HTTPStatusLine.line(200) + "</D:status></D:propstat>").utf8)
    private static let responseStart = Array("<D:response><D:href>".utf8)
    private static let hrefEnd = Array("</D:href>".utf8)
    private static let propstatStart = Array("<D:propstat><D:prop>".utf8)
    private static let responseEnd = Array("</D:response>".utf8)

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

    private static func appendError(_ condition: String, to xml: inout [UInt8]) {
        guard XMLText.isNCName(condition) else { return }
        xml += "<D:error><D:".utf8
        xml += condition.utf8
        xml += "/></D:error>".utf8
    }
}
