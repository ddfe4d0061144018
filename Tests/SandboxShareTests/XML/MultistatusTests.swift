import SandboxStore
import Testing

@testable import SandboxShare

@Suite struct MultistatusTests {
    @Test func rendersResponsesPropstatsAndStatuses() throws {
        var multistatus = Multistatus()
        multistatus.add(
            href: "/a%20b/",
            propstats: [
                Propstat(
                    status: 200,
                    properties: [
                        (.dav("getcontentlength"), value: "12"), (.dav("resourcetype"), value: "<D:collection/>"),
                        (PropertyName("http://ns", "author"), value: #"<ns0:x xmlns:ns0="urn:x">t</ns0:x>"#),
                        (PropertyName("", "plain"), value: nil),
                    ]),
                Propstat(status: 404, properties: [(PropertyName("urn:a&b\"", "missing"), value: nil)]),
                Propstat(
                    status: 403, properties: [(.dav("getetag"), value: nil)], error: "cannot-modify-protected-property"),
            ])
        multistatus.add(href: "/<locked>", status: 423, error: "lock-token-submitted")
        multistatus.add(href: "/gone", status: 999)
        let text = String(decoding: multistatus.bytes, as: UTF8.self)
        #expect(text.hasPrefix(#"<?xml version="1.0" encoding="utf-8"?>"# + "\n" + #"<D:multistatus xmlns:D="DAV:">"#))
        #expect(text.contains("<D:response><D:href>/a%20b/</D:href><D:propstat><D:prop>"))
        #expect(text.contains("<D:prop><D:getcontentlength>12</D:getcontentlength>"))
        #expect(text.contains("<D:resourcetype><D:collection/></D:resourcetype>"))
        #expect(text.contains(#"<ns0:author xmlns:ns0="http://ns"><ns0:x xmlns:ns0="urn:x">t</ns0:x></ns0:author>"#))
        #expect(text.contains(#"<plain xmlns=""/>"#))
        #expect(text.contains("<D:status>HTTP/1.1 200 OK</D:status>"))
        #expect(text.contains(#"<ns0:missing xmlns:ns0="urn:a&amp;b&quot;"/></D:prop>"#))
        #expect(text.contains("</D:prop><D:status>HTTP/1.1 404 Not Found</D:status>"))
        #expect(
            text.contains(
                "<D:status>HTTP/1.1 403 Forbidden</D:status><D:error><D:cannot-modify-protected-property/></D:error>"))
        #expect(text.contains("<D:href>/&lt;locked&gt;</D:href><D:status>HTTP/1.1 423 Locked</D:status>"))
        #expect(text.contains("<D:status>HTTP/1.1 999 </D:status>"))
        #expect(text.hasSuffix("</D:multistatus>\n"))
        // The body is well-formed: our own parser reads it back.
        let tree = try XMLDocumentParser.parse(multistatus.bytes, what: "test")
        #expect(tree.isDAV("multistatus") && tree.children.count == 3)
    }

    @Test func neverWritesIllFormedXML() throws {
        var multistatus = Multistatus()
        multistatus.add(
            href: "/bad\u{1}\u{0}\u{FFFE}\r\n<&>",
            propstats: [
                Propstat(
                    status: 200,
                    properties: [
                        (PropertyName("u", "1bad"), value: nil), (PropertyName("u", "a b"), value: nil),
                        (PropertyName("u", "x:y"), value: nil), (PropertyName("u", ""), value: nil),
                        (PropertyName("u\u{0}", "ok"), value: nil),
                    ], error: "not a name")
            ])
        multistatus.add(href: "/x", status: 200, error: "<evil/>")
        let tree = try XMLDocumentParser.parse(multistatus.bytes, what: "test")
        let response = try #require(tree.children.first)
        #expect(response.davChild("href")?.text == "/bad\u{FFFD}\u{FFFD}\u{FFFD}\r\n<&>")
        let properties = response.davChild("propstat")?.davChild("prop")?.children ?? []
        #expect(properties.map(\.name) == ["ok"])
        #expect(properties.first?.namespace == "u\u{FFFD}")
    }

    @Test func errorBodies() throws {
        let body = String(
            decoding: Multistatus.errorBody(condition: "lock-token-submitted", hrefs: ["/a", "/b&c"]), as: UTF8.self)
        #expect(
            body.hasSuffix(
                #"<D:error xmlns:D="DAV:"><D:lock-token-submitted><D:href>/a</D:href><D:href>/b&amp;c</D:href>"#
                    + "</D:lock-token-submitted></D:error>\n"))
        let empty = String(
            decoding: Multistatus.errorBody(condition: "propfind-finite-depth", hrefs: []), as: UTF8.self)
        #expect(empty.contains(#"<D:error xmlns:D="DAV:"><D:propfind-finite-depth/></D:error>"#))
        _ = try XMLDocumentParser.parse(Multistatus.errorBody(condition: "<x>", hrefs: ["\u{0}"]), what: "test")
    }

    @Test func escapesTextAndAttributes() {
        #expect(XMLText.escape(#"a&b<c>d"e'f"#) == "a&amp;b&lt;c&gt;d&quot;e&apos;f")
        #expect(XMLText.escape("\t\n\r") == "&#9;&#10;&#13;")
        #expect(XMLText.escape("\u{0}\u{8}\u{B}\u{1F}\u{FFFE}\u{FFFF}") == String(repeating: "\u{FFFD}", count: 6))
        #expect(XMLText.escape("é\u{10FFFF}\u{7F}") == "é\u{10FFFF}\u{7F}")
        #expect(XMLText.isNCName("getetag") && XMLText.isNCName("_a-b.c1") && XMLText.isNCName("été"))
        #expect(
            !XMLText.isNCName("") && !XMLText.isNCName("1a") && !XMLText.isNCName("a:b") && !XMLText.isNCName("a b"))
        // ASCII names are judged byte by byte, others by scalar: both ways agree at the edges.
        #expect(XMLText.isNCName("a\u{B7}b") && XMLText.isNCName("Z9_.-") && XMLText.isNCName("_"))
        #expect(
            !XMLText.isNCName("-a") && !XMLText.isNCName(".a") && !XMLText.isNCName("a\u{7F}")
                && !XMLText.isNCName("a/"))
        #expect(HTTPStatusLine.line(424) == "HTTP/1.1 424 Failed Dependency")
        #expect(HTTPStatusLine.line(507) == "HTTP/1.1 507 Insufficient Storage")
    }
}
