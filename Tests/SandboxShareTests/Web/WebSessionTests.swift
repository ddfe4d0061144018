import HTTPTypes
import Sandbox
import Testing

@testable import SandboxShare

/// The page's sessions, cookies, form fields and CSRF check, without a server.
@Suite struct WebSessionTests {
    @Test func sessionsAreRandomCappedAndEndWhenIdle() {
        let sessions = WebSessions()
        let start = ContinuousClock.now
        let first = sessions.open(now: start)
        let scope = Substring(first.session.scope)
        #expect(first.token.count == 64 && first.session.csrfToken.count == 64 && scope.count == 64)
        #expect(Set([first.token, first.session.csrfToken, first.session.scope]).count == 3)
        #expect(sessions.session(for: first.token, in: scope, now: start)?.csrfToken == first.session.csrfToken)
        let altered = (first.token.hasPrefix("0") ? "1" : "0") + first.token.dropFirst()
        #expect(sessions.session(for: altered, in: scope, now: start) == nil)
        #expect(sessions.session(for: nil, in: scope, now: start) == nil)
        // The right token in another folder (a cookie replayed elsewhere): none.
        let otherScope = Substring((scope.hasPrefix("0") ? "1" : "0") + scope.dropFirst())
        #expect(sessions.session(for: first.token, in: otherScope, now: start) == nil)
        #expect(sessions.session(for: first.token, in: "", now: start) == nil)
        // Idle past the limit: gone.
        #expect(sessions.session(for: first.token, in: scope, now: start + WebSessions.idleLimit + .seconds(1)) == nil)
        // The least recently used goes when the cap is reached.
        let opened = (0..<WebSessions.maximumCount).map { sessions.open(now: start + .seconds($0)) }
        _ = sessions.open(now: start + .seconds(10_000))
        let later = start + .seconds(10_001)
        #expect(sessions.session(for: opened[0].token, in: Substring(opened[0].session.scope), now: later) == nil)
        #expect(sessions.session(for: opened[1].token, in: Substring(opened[1].session.scope), now: later) != nil)
        sessions.close(opened[1].token)
        #expect(sessions.session(for: opened[1].token, in: Substring(opened[1].session.scope), now: later) == nil)
    }

    @Test func sessionFoldersAreSplitOnlyWithTheirSlash() {
        let scope = String(repeating: "a", count: 64)
        #expect(SessionFolder.path(of: scope) == "/.sandbox/s/\(scope)/")
        let split = SessionFolder.split("/.sandbox/s/\(scope)/api/list")
        #expect(split?.scope == Substring(scope) && split?.rest == "api/list")
        #expect(SessionFolder.split("/.sandbox/s/\(scope)/")?.rest == "")
        for path in ["/.sandbox/s/\(scope)", "/.sandbox/s/", "/.sandbox/s//api/list", "/.sandbox/api/list", "/"] {
            #expect(SessionFolder.split(path) == nil, "\(path)")
        }
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

    @Test func theCookieIsHttpOnlyStrictAndSentToItsFolderOnly() {
        let value = SessionCookie.setting("abc", scope: "f00d", secure: false)
        #expect(value.contains("HttpOnly") && value.contains("SameSite=Strict") && !value.contains("Secure"))
        #expect(SessionCookie.setting("abc", scope: "f00d", secure: true).hasSuffix("; Secure"))
        #expect(value.contains("; Path=/.sandbox/s/f00d/;"), "\(value)")
        let clearing = SessionCookie.clearing(scope: "f00d", secure: false)
        #expect(clearing.contains("Max-Age=0") && clearing.contains("; Path=/.sandbox/s/f00d/;"))
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
            #expect(throws: SandboxError.self, "\(bad.prefix(20))") { try SharePath(plainPath: bad) }
        }
    }
}
