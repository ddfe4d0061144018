import HTTPTypes
import Testing

@testable import SandboxShare

/// The page's sessions, cookies, form fields and CSRF check, without a server.
@Suite struct WebSessionTests {
    @Test func sessionsAreRandomCappedAndEndWhenIdle() {
        let sessions = WebSessions()
        let start = ContinuousClock.now
        let first = sessions.open(now: start)
        #expect(first.token.count == 64 && first.session.csrfToken.count == 64)
        #expect(first.token != first.session.csrfToken)
        #expect(sessions.session(for: first.token, now: start)?.csrfToken == first.session.csrfToken)
        let altered = (first.token.hasPrefix("0") ? "1" : "0") + first.token.dropFirst()
        #expect(sessions.session(for: altered, now: start) == nil)
        #expect(sessions.session(for: nil, now: start) == nil)
        // Idle past the limit: gone.
        #expect(sessions.session(for: first.token, now: start + WebSessions.idleLimit + .seconds(1)) == nil)
        // The least recently used goes when the cap is reached.
        let tokens = (0..<WebSessions.maximumCount).map { sessions.open(now: start + .seconds($0)).token }
        _ = sessions.open(now: start + .seconds(10_000))
        #expect(sessions.session(for: tokens[0], now: start + .seconds(10_001)) == nil)
        #expect(sessions.session(for: tokens[1], now: start + .seconds(10_001)) != nil)
        sessions.close(tokens[1])
        #expect(sessions.session(for: tokens[1], now: start + .seconds(10_001)) == nil)
    }

    @Test(arguments: [
        "sandbox_session=\(String(repeating: "a", count: 64))",
        "x=1; sandbox_session=\(String(repeating: "a", count: 64))",
        "sandbox_session=short; sandbox_session=\(String(repeating: "a", count: 64))",
    ])
    func theCookieIsFound(header: String) {
        var fields = HTTPFields()
        fields[.cookie] = header
        #expect(SessionCookie.token(in: fields) == String(repeating: "a", count: 64))
    }

    @Test(arguments: [
        "", "sandbox_session", "sandbox_session=", "sandbox_session=\(String(repeating: "A", count: 64))",
        "sandbox_session=\(String(repeating: "a", count: 65))", "xsandbox_session=\(String(repeating: "a", count: 64))",
        "sandbox_session=\(String(repeating: "a", count: 63))\u{0}", ";;;==;", String(repeating: "x=1;", count: 5000),
    ])
    func malformedCookiesAreNone(header: String) {
        var fields = HTTPFields()
        fields[.cookie] = header
        #expect(SessionCookie.token(in: fields) == nil)
    }

    @Test func theCookieIsHttpOnlyAndStrict() {
        let value = SessionCookie.setting("abc")
        #expect(value.contains("HttpOnly") && value.contains("SameSite=Strict") && value.contains("Path=/"))
        #expect(SessionCookie.clearing.contains("Max-Age=0"))
    }

    @Test func formFieldsAreDecodedOnce() {
        #expect(FormFields.value(of: "code", in: "code=ab%2Dcd+ef") == "ab-cd ef")
        #expect(FormFields.value(of: "path", in: "x=1&path=%2FA%20b%2F%2541") == "/A b/%41")
        #expect(FormFields.value(of: "path", in: "path") == nil)
        #expect(FormFields.value(of: "path", in: "path=%FF") == nil)  // not UTF-8
        #expect(FormFields.value(of: "code", in: "") == nil)
    }

    @Test func namesAreEscapedForHTML() {
        #expect(
            XMLText.escape("<img src=x onerror=\"a('1')\">&")
                == "&lt;img src=x onerror=&quot;a(&apos;1&apos;)&quot;&gt;&amp;")
    }

    @Test func plainPathsFollowTheRequestPathRules() throws {
        #expect(try SharePath(plainPath: "/a b/%41.txt").names == ["a b", "%41.txt"])
        for bad in ["a", "/a/../b", "/a//b", "/a\u{0}b", "/a\\b", "/" + String(repeating: "x", count: 256)] {
            #expect(throws: ShareError.self, "\(bad.prefix(20))") { try SharePath(plainPath: bad) }
        }
    }
}
