import Sandbox
import Testing

@testable import SandboxShare

@Suite struct IfHeaderTests {
    let authorities: Set<String> = ["localhost:8080"]

    private func parse(_ value: String) throws -> IfHeader {
        try IfHeader.parse(value, allowedAuthorities: authorities)
    }

    @Test func parsesUntaggedLists() throws {
        let header = try parse(#"(<opaquelocktoken:a-b> ["etag"]) (Not <DAV:no-lock> [W/"w"])"#)
        #expect(
            header.lists == [
                .init(
                    resource: .untagged,
                    conditions: [
                        .init(negated: false, kind: .stateToken("opaquelocktoken:a-b")),
                        .init(negated: false, kind: .entityTag("\"etag\"")),
                    ]),
                .init(
                    resource: .untagged,
                    conditions: [
                        .init(negated: true, kind: .stateToken("DAV:no-lock")),
                        .init(negated: false, kind: .entityTag("W/\"w\"")),
                    ]),
            ])
        #expect(header.submittedTokens == ["opaquelocktoken:a-b", "DAV:no-lock"])
    }

    @Test func parsesTaggedLists() throws {
        let header = try parse(
            "<http://localhost:8080/a%20b> (<urn:uuid:1>) (<urn:uuid:2>)\t</c/> (not<urn:uuid:3>)"
                + " <http://other.example/x> ([\"e\"])")
        #expect(header.lists.count == 4)
        #expect(header.lists[0].resource == .path(try SharePath(requestPath: "/a%20b")))
        #expect(header.lists[1].resource == header.lists[0].resource)
        #expect(header.lists[2].resource == .path(try SharePath(requestPath: "/c")))
        #expect(header.lists[2].conditions == [.init(negated: true, kind: .stateToken("urn:uuid:3"))])
        #expect(header.lists[3].resource == .foreign)
        #expect(header.submittedTokens == ["urn:uuid:1", "urn:uuid:2", "urn:uuid:3"])
    }

    @Test(arguments: [
        "", "   ", "()", "( )", "(<a:b>", "<a:b>)", "(<a:b>))", "((<a:b>))", "(<a:b>", "(<>)", "(<a b>)",
        "(<a:b)", "([\"e\")", "([e])", "([\"e])", "([\"e\"]", "([])", "(Not)", "(Nott <a:b>)", "(Not [\"e\" ])",
        "<http://localhost:8080/a>", "</a> (<a:b>) (<c:d>) </b>", "(<a:b>) </a> (<c:d>)", "</a> (<a:b>) (<c:d>) x",
        "</a>(<a:b>) (<c:d>) (", "(<a:b>) junk", "(<a:<b>)", "(<a:\u{0}b>)", "([\"a\u{1}\"])", "</../x> (<a:b>)",
        "</%2e%2e/x> (<a:b>)", "<http://u@localhost:8080/a> (<a:b>)", "</a?q> (<a:b>)", "(<a:b> <c:d> Not)",
        "[\"e\"]", "<a:b>", "Not (<a:b>)",
    ])
    func refusesMalformedHeaders(value: String) {
        #expect {
            try parse(value)
        } throws: { error in
            (error as? SandboxError)?.code == .malformedRequest
        }
    }

    @Test func refusesOversizedHeadersAndSurvivesDeepInput() throws {
        let many = String(repeating: "(<urn:x>)", count: 8000)
        #expect(many.utf8.count > IfHeader.maximumLength)
        #expect(throws: SandboxError.self) { try parse(many) }
        let manyButFitting = String(repeating: "(<urn:x>) ", count: 6000)
        #expect(try parse(manyButFitting).lists.count == 6000)
        #expect(throws: SandboxError.self) { try parse(String(repeating: "(", count: 60_000)) }
        #expect(throws: SandboxError.self) { try parse(String(repeating: "<", count: 60_000)) }
        #expect(throws: SandboxError.self) { try parse(String(repeating: "[", count: 60_000)) }
    }
}
