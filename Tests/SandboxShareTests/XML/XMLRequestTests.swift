import SandboxStore
import Testing

@testable import SandboxShare

@Suite struct XMLRequestTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    private func expectMalformed(_ body: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(sourceLocation: sourceLocation) {
            try PropfindRequest.parse(Array(body.utf8))
        } throws: { error in
            (error as? SandboxError)?.code == .malformedRequest
        }
    }

    @Test func propfindForms() throws {
        #expect(try PropfindRequest.parse([]) == .allProperties(include: []))
        #expect(try PropfindRequest.parse(bytes(" \r\n")) == .allProperties(include: []))
        #expect(
            try PropfindRequest.parse(
                bytes(#"<?xml version="1.0" encoding="utf-8"?><propfind xmlns="DAV:"><allprop/></propfind>"#))
                == .allProperties(include: []))
        #expect(
            try PropfindRequest.parse(bytes(#"<D:propfind xmlns:D="DAV:"><D:propname/></D:propfind>"#))
                == .propertyNames)
        let named = #"""
            <D:propfind xmlns:D="DAV:" xmlns:x="http://example.com/ns"><D:prop>
            <D:getetag/><x:author/><plain xmlns=""/><y:z xmlns:y="relative"/></D:prop></D:propfind>
            """#
        #expect(
            try PropfindRequest.parse(bytes(named))
                == .properties([
                    .dav("getetag"), PropertyName("http://example.com/ns", "author"), PropertyName("", "plain"),
                    PropertyName("relative", "z"),
                ]))
        let include =
            #"<propfind xmlns="DAV:"><allprop/><include><quota-used-bytes/></include>"#
            + #"<x xmlns="urn:x"/></propfind>"#
        #expect(try PropfindRequest.parse(bytes(include)) == .allProperties(include: [.dav("quota-used-bytes")]))
    }

    @Test(arguments: [
        "<foo>",  // litmus propfind_invalid
        #"<D:propfind xmlns:D="DAV:"><D:prop><bar:foo xmlns:bar=""/></D:prop></D:propfind>"#,  // propfind_invalid2
        #"<D:propfind xmlns:D="DAV:"><D:prop><bar:foo/></D:prop></D:propfind>"#,  // undeclared prefix
        #"<D:propfind xmlns:D="DAV:"><D:prop><x a:b="1" xmlns="u"/></D:prop></D:propfind>"#,  // undeclared attr prefix
        #"<D:propfind xmlns:D="DAV:"><D:prop><x xmlns="u" a="1" a="2"/></D:prop></D:propfind>"#,  // duplicate attr
        #"<propfind xmlns="DAV:"/>"#, #"<propfind xmlns="DAV:"><allprop/><propname/></propfind>"#,
        #"<propfind><allprop/></propfind>"#, #"<D:propertyupdate xmlns:D="DAV:"/>"#,
        #"<propfind xmlns="DAV:"><allprop/></propfind><second/>"#, #"<propfind xmlns="DAV:"><allprop/>"#,
        #"<propfind xmlns="DAV:">&undefined;<allprop/></propfind>"#,
        "<propfind xmlns=\"DAV:\">\u{1}<allprop/></propfind>",
        #"<propfind xmlns="DAV:">&#0;<allprop/></propfind>"#, "garbage", "<", "<a></b>",
        #"<?xml version="1.0" encoding="UTF-16"?><propfind xmlns="DAV:"><allprop/></propfind>"#,
        #"<?xml version="1.0" encoding="ISO-8859-1"?><propfind xmlns="DAV:"><allprop/></propfind>"#,
        #"<?xml version="1.0" encoding="UTF-7"?>+ADw-propfind xmlns=+ACI-DAV:+ACI-/+AD4-"#,
    ])
    func propfindRefusesMalformedBodies(body: String) {
        expectMalformed(body)
    }

    @Test func refusesEveryDTD() {
        let billionLaughs = """
            <?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;">
            <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]>
            <D:propfind xmlns:D="DAV:"><D:prop><x xmlns="u">&lol3;</x></D:prop></D:propfind>
            """
        let externalEntity = """
            <?xml version="1.0"?><!DOCTYPE foo [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>
            <D:propfind xmlns:D="DAV:"><D:prop><x xmlns="u">&xxe;</x></D:prop></D:propfind>
            """
        let externalDTD =
            #"<!DOCTYPE propfind SYSTEM "http://127.0.0.1:1/evil.dtd">"#
            + #"<propfind xmlns="DAV:"><allprop/></propfind>"#
        let lowercase = #"<!doctype x><propfind xmlns="DAV:"><allprop/></propfind>"#
        let parameterEntity = #"<!ENTITY % p SYSTEM "file:///etc/passwd"><propfind xmlns="DAV:"><allprop/></propfind>"#
        for body in [billionLaughs, externalEntity, externalDTD, lowercase, parameterEntity] {
            expectMalformed(body)
        }
        // UTF-16 would hide the DTD from a byte search; it is refused as not UTF-8.
        var utf16: [UInt8] = [0xFF, 0xFE]
        for unit in externalEntity.utf16 { utf16 += [UInt8(unit & 0xFF), UInt8(unit >> 8)] }
        #expect(throws: SandboxError.self) { try PropfindRequest.parse(utf16) }
        #expect(throws: SandboxError.self) { try PropfindRequest.parse(Array(utf16.dropFirst(2))) }
    }

    @Test func refusesInvalidUTF8AndOverlongForms() {
        for body in [[0xC0, 0xBC], [0xED, 0xA0, 0x80], [0xFF], [0xC3]] as [[UInt8]] {
            var bytes = bytes(#"<propfind xmlns="DAV:"><prop><x xmlns="u">"#)
            bytes += body
            bytes += self.bytes(#"</x></prop></propfind>"#)
            #expect(throws: SandboxError.self) { try PropfindRequest.parse(bytes) }
        }
    }

    @Test func boundsDepthCountAndSize() throws {
        func nested(_ depth: Int) -> String {
            #"<propfind xmlns="DAV:"><prop><x xmlns="u">"# + String(repeating: "<a>", count: depth - 3)
                + String(repeating: "</a>", count: depth - 3) + "</x></prop></propfind>"
        }
        #expect(try PropfindRequest.parse(bytes(nested(64))) == .properties([PropertyName("u", "x")]))
        expectMalformed(nested(65))
        expectMalformed(nested(100))
        expectMalformed(nested(100_000))
        let wide =
            #"<propfind xmlns="DAV:"><prop>"# + String(repeating: #"<x xmlns="u"/>"#, count: 9998)
            + "</prop></propfind>"
        #expect(
            try PropfindRequest.parse(bytes(wide)) == .properties(Array(repeating: PropertyName("u", "x"), count: 9998))
        )
        expectMalformed(
            #"<propfind xmlns="DAV:"><prop>"# + String(repeating: "<x/>", count: 10_000) + "</prop></propfind>")
        let huge = [UInt8](repeating: 0x20, count: XMLLimits.webDAV.maximumBodySize) + bytes("<a/>")
        #expect {
            try PropfindRequest.parse(huge)
        } throws: { error in
            (error as? SandboxError)?.code == .tooLarge
        }
    }

    @Test func manySmallTextPiecesParseInLinearTime() throws {
        let amps = String(repeating: "&amp;", count: 150_000)
        let body =
            #"<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><x xmlns="u">"# + amps
            + "</x></D:prop></D:set></D:propertyupdate>"
        let clock = ContinuousClock()
        let start = clock.now
        let patch = try ProppatchRequest.parse(bytes(body))
        #expect(clock.now - start < .seconds(10))
        #expect(patch.operations == [.set(PropertyName("u", "x"), value: amps)])
    }

    @Test func proppatchKeepsOrderAndValuesAsFragments() throws {
        let body = #"""
            <?xml version="1.0" encoding="utf-8" ?>
            <D:propertyupdate xmlns:D="DAV:" xmlns:Z="http://ns.example.com/z/">
              <D:set><D:prop><Z:Authors><Z:Author>Jim &amp; "Roy"</Z:Author><Author xmlns="">Ro&lt;y</Author>\#
            </Z:Authors>
                <Z:empty/><Z:text>a<![CDATA[<b>]]>c</Z:text></D:prop></D:set>
              <D:remove><D:prop><Z:Copyright-Owner/></D:prop></D:remove>
              <D:set><D:prop><Z:lang xml:lang="en" Z:attr="v&quot;" plain="p">&#x10FFFF;é</Z:lang></D:prop></D:set>
            </D:propertyupdate>
            """#
        let z = "http://ns.example.com/z/"
        let patch = try ProppatchRequest.parse(bytes(body))
        #expect(
            patch.operations == [
                .set(
                    PropertyName(z, "Authors"),
                    value: #"<ns0:Author xmlns:ns0="http://ns.example.com/z/">Jim &amp; &quot;Roy&quot;</ns0:Author>"#
                        + #"<Author xmlns="">Ro&lt;y</Author>"#),
                .set(PropertyName(z, "empty"), value: ""),
                .set(PropertyName(z, "text"), value: "a&lt;b&gt;c"),
                .remove(PropertyName(z, "Copyright-Owner")),
                .set(PropertyName(z, "lang"), value: "\u{10FFFF}é"),
            ])
    }

    @Test func fragmentsRoundTripThroughAnotherDocument() throws {
        let body = #"""
            <D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><p xmlns="urn:p">
            <foo xmlns="http://bar" xmlns:q="urn:q" q:a="1" xml:lang="fr">t<q:inner>&lt;</q:inner><none xmlns=""/></foo>
            </p></D:prop></D:set></D:propertyupdate>
            """#
        guard case .set(_, let value) = try ProppatchRequest.parse(bytes(body)).operations.first else {
            Issue.record("no set")
            return
        }
        // The fragment, put inside a document that binds the same prefixes to other namespaces,
        // parses back to the same elements.
        let wrapped =
            #"<D:propertyupdate xmlns:D="DAV:" xmlns:ns0="urn:trap" xmlns="urn:trap2"><D:set><D:prop>"#
            + #"<ns1:p xmlns:ns1="urn:p">"# + value + "</ns1:p></D:prop></D:set></D:propertyupdate>"
        guard case .set(_, let again) = try ProppatchRequest.parse(bytes(wrapped)).operations.first else {
            Issue.record("no set")
            return
        }
        #expect(again == value)
        let tree = try XMLDocumentParser.parse(bytes("<r>" + value + "</r>"), what: "test")
        let foo = try #require(tree.children.first)
        #expect(foo.namespace == "http://bar" && foo.name == "foo")
        #expect(foo.attributes.map(\.namespace) == ["http://www.w3.org/XML/1998/namespace", "urn:q"])
        #expect(foo.children.map(\.namespace) == ["urn:q", ""])
    }

    @Test(arguments: [
        #"<D:propertyupdate xmlns:D="DAV:"/>"#, #"<D:propertyupdate xmlns:D="DAV:"><D:set/></D:propertyupdate>"#,
        #"<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop/></D:set></D:propertyupdate>"#,
        #"<D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>"#, "", "<x",
    ])
    func proppatchRefusesMalformedBodies(body: String) {
        #expect {
            try ProppatchRequest.parse(Array(body.utf8))
        } throws: { error in
            (error as? SandboxError)?.code == .malformedRequest
        }
    }

    @Test func lockRequests() throws {
        #expect(try LockRequest.parse([]) == nil)
        #expect(try LockRequest.parse(bytes("\n")) == nil)
        let exclusive = #"""
            <?xml version="1.0" encoding="utf-8" ?><D:lockinfo xmlns:D='DAV:'>
            <D:lockscope><D:exclusive/></D:lockscope><D:locktype><D:write/></D:locktype>
            <D:owner><D:href>http://example.org/~ejw/contact.html</D:href></D:owner></D:lockinfo>
            """#
        #expect(
            try LockRequest.parse(bytes(exclusive))
                == LockRequest(
                    scope: .exclusive,
                    owner: #"<ns0:href xmlns:ns0="DAV:">http://example.org/~ejw/contact.html</ns0:href>"#))
        let shared = #"<lockinfo xmlns="DAV:"><lockscope><shared/></lockscope><locktype><write/></locktype></lockinfo>"#
        #expect(try LockRequest.parse(bytes(shared)) == LockRequest(scope: .shared, owner: nil))
        let textOwner =
            #"<lockinfo xmlns="DAV:"><locktype><write/></locktype><owner>me &amp; you</owner>"#
            + "<lockscope><exclusive/></lockscope></lockinfo>"
        #expect(try LockRequest.parse(bytes(textOwner)) == LockRequest(scope: .exclusive, owner: "me &amp; you"))
    }

    @Test(arguments: [
        #"<lockinfo xmlns="DAV:"><locktype><write/></locktype></lockinfo>"#,
        #"<lockinfo xmlns="DAV:"><lockscope><exclusive/></lockscope></lockinfo>"#,
        #"<lockinfo xmlns="DAV:"><lockscope/><locktype><write/></locktype></lockinfo>"#,
        #"<lockinfo xmlns="DAV:"><lockscope><exclusive/><shared/></lockscope><locktype><write/></locktype></lockinfo>"#,
        #"<lockinfo xmlns="DAV:"><lockscope><other/></lockscope><locktype><write/></locktype></lockinfo>"#,
        #"<lockinfo xmlns="DAV:"><lockscope><exclusive/></lockscope><locktype><read/></locktype></lockinfo>"#,
        #"<lockinfo xmlns="DAV:"><lockscope><exclusive/></lockscope><locktype><write xmlns="u"/></locktype>"#
            + "</lockinfo>",
        #"<lockinfo><lockscope><exclusive/></lockscope><locktype><write/></locktype></lockinfo>"#,
        #"<D:propfind xmlns:D="DAV:"><D:allprop/></D:propfind>"#, "<lockinfo",
    ])
    func lockRefusesMalformedBodies(body: String) {
        #expect {
            try LockRequest.parse(Array(body.utf8))
        } throws: { error in
            (error as? SandboxError)?.code == .malformedRequest
        }
    }
}

@Suite struct XMLConcurrencyTests {
    /// Handlers parse bodies on many threads at once; FoundationXML's parser keeps per-thread state.
    @Test func parsesConcurrently() async throws {
        let body = Array(
            (#"<D:propertyupdate xmlns:D="DAV:"><D:set><D:prop><x xmlns="u">v<y/></x></D:prop></D:set>"#
                + "</D:propertyupdate>").utf8)
        let bad = Array(#"<D:propfind xmlns:D="DAV:"><D:prop><b:f xmlns:b=""/></D:prop></D:propfind>"#.utf8)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    for _ in 0..<100 {
                        let patch = try ProppatchRequest.parse(body)
                        #expect(patch.operations == [.set(PropertyName("u", "x"), value: #"v<ns0:y xmlns:ns0="u"/>"#)])
                        #expect(throws: SandboxError.self) { try PropfindRequest.parse(bad) }
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}
