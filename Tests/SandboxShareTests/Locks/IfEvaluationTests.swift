import Testing

@testable import SandboxShare

/// The conditional PUTs of litmus's `locks` suite, on `/lockme` locked with `token`, its ETag `etag`.
@Suite struct IfEvaluationTests {
    let token = "urn:uuid:0b6f1f7e-2c1a-4a55-9d0e-0123456789ab"
    let etag = "\"1a-4-17f\""
    let request: SharePath

    init() throws { request = try sharePath("/lockme") }

    func holds(_ header: String, state: ResourceState? = nil) throws -> Bool {
        let parsed = try IfHeader.parse(header, allowedAuthorities: ["localhost:8080"])
        let own = state ?? ResourceState(etag: etag, lockTokens: [token])
        return IfEvaluation.evaluate(parsed, requestPath: request) { path in
            path == request ? own : ResourceState(etag: nil, lockTokens: [])
        }
    }

    @Test func litmusConditionalPuts() throws {
        #expect(try holds("(<\(token)> [\(etag)])"), "cond_put")
        #expect(try !holds("(<DAV:no-lock> [\(etag)])"), "fail_cond_put: 412")
        #expect(try holds("(<\(token)>) (Not <DAV:no-lock>)"), "cond_put_with_not")
        // cond_put_corrupt_token: the second list holds, so the If header does; the lock check then
        // answers 423 because the real token was not submitted.
        #expect(try holds("(<\(token)x>) (Not <DAV:no-lock>)"))
        #expect(try holds("(<\(token)> [\(etag)]) (Not <DAV:no-lock> [\(etag)])"), "complex_cond_put")
        #expect(try !holds("(<\(token)> [\"1a-4-18f\"]) (Not <DAV:no-lock> [\"1a-4-18f\"])"), "fail_complex_cond_put")
        let unlocked = ResourceState(etag: etag, lockTokens: [])
        #expect(try !holds("(<DAV:no-lock>)", state: unlocked), "fail_cond_put_unlocked")
    }

    @Test func entityTagsCompareStrongly() throws {
        #expect(try holds("([\(etag)])"))
        #expect(try !holds("([W/\(etag)])"))
        #expect(try !holds("([\(etag)])", state: ResourceState(etag: "W/\(etag)", lockTokens: [])))
        #expect(try !holds("([\(etag)])", state: ResourceState(etag: nil, lockTokens: [])), "a missing item has none")
        #expect(try holds("(Not [\"other\"])"))
        #expect(try !holds("(Not [\(etag)])"))
    }

    @Test func everyConditionOfAListMustHold() throws {
        #expect(try !holds("(<\(token)> [\"other\"])"))
        #expect(try !holds("(Not <\(token)>)"))
        #expect(try holds("(<urn:uuid:unknown>) ([\(etag)])"))
    }

    @Test func taggedListsAreAboutTheirItem() throws {
        #expect(try holds("</lockme> (<\(token)>)"))
        #expect(try holds("<http://localhost:8080/lockme> (<\(token)>)"))
        #expect(try !holds("</other> (<\(token)>)"), "the token does not cover /other")
        #expect(try holds("</other> (Not <\(token)>)"))
        #expect(try !holds("<http://elsewhere.example/lockme> (<\(token)>)"), "another server's item never matches")
        #expect(try !holds("<http://elsewhere.example/lockme> (Not <DAV:no-lock>)"))
    }
}
