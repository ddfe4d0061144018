import Foundation
import SandboxShare
import Testing

/// No request is served without the pairing code; guessing it is throttled.
@Suite struct AuthenticationTests {
    static let methods = [
        "GET", "HEAD", "PUT", "DELETE", "MKCOL", "COPY", "MOVE", "PROPFIND", "PROPPATCH", "LOCK", "UNLOCK", "OPTIONS",
    ]

    /// Each method, on an existing file, without credentials and with a wrong code: 401 with a
    /// Basic challenge, and the file untouched. (A fresh server per method: two failures each
    /// stay under the throttle's threshold.)
    @Test(arguments: methods)
    func everyMethodNeedsThePairingCode(method: String) async throws {
        try await ShareServerProcess.with { server in
            try server.plant("file.txt", "untouched")
            let headers = [("Destination", server.url("/moved.txt")), ("Depth", "0")]
            let body = method == "PUT" ? Array("overwritten".utf8) : []
            for credentials in [
                Credentials.none, .header(ShareServerProcess.basic(user: "sandbox", password: "wrong-code")),
            ] {
                let response = try await server.send(
                    method, "/file.txt", headers: headers, body: body, credentials: credentials)
                #expect(response.status == 401, "\(method) with \(credentials): \(response)")
                let challenge = response.header("WWW-Authenticate") ?? ""
                #expect(challenge.hasPrefix("Basic realm=\""), "\(method): WWW-Authenticate is '\(challenge)'")
                #expect(response.header("Access-Control-Allow-Origin") == nil)
            }
            #expect(server.contents("file.txt") == "untouched")
            #expect(server.documentsTree() == ["file.txt"])
        }
    }

    /// Malformed credentials are refused like wrong ones, never a crash or a 500.
    @Test func malformedCredentialsGet401() async throws {
        try await ShareServerProcess.with { server in
            let headers = [
                "Basic", "Basic ", "Basic !!!not-base64!!!", ShareServerProcess.basic(user: "", password: server.code),
                ShareServerProcess.basic(user: "sandbox", password: ""),
                "Basic " + Data("sandbox".utf8).base64EncodedString(),
                ShareServerProcess.basic(user: "other", password: server.code),
                ShareServerProcess.basic(user: "sandbox", password: server.code + "x"),
                "Bearer " + server.code,
            ]
            for header in headers {  // nine failures: one short of the throttle
                let response = try await server.send("GET", "/", credentials: .header(header))
                #expect(response.status == 401, "Authorization '\(header)': \(response)")
            }
            let response = try await server.send("PROPFIND", "/", headers: [("Depth", "0")])
            #expect(response.status == 207, "the right code after nine failures: \(response)")
        }
    }

    /// After 10 failures from one address, the 11th attempt gets 429, whatever it sends. HTTP Basic
    /// and the page's login form have a budget each: a WebDAV client's failures do not lock the
    /// owner out of the page, nor the other way round (at most twice the guesses: see the threat model).
    ///
    /// The first block lasts 1 s (`FailureThrottle.firstBlock`), so what is said of it holds only for
    /// requests answered within 1 s of sending the failure that started it: a round in which the
    /// loaded machine took longer proves nothing either way and is run again on a fresh server.
    @Test func repeatedFailuresAreThrottled() async throws {
        var basicShown = false
        var formShown = false
        for _ in 0..<Self.rounds where !(basicShown && formShown) {
            try await ShareServerProcess.with { server in
                if !basicShown { basicShown = try await Self.basicIsBlockedAfterTenFailures(server) }
                if !formShown { formShown = try await Self.theFormIsBlockedAfterTenFailures(server) }
            }
        }
        #expect(basicShown, "no round of HTTP Basic failures ran within the 1 s block: the machine is too loaded")
        #expect(formShown, "no round of login-form failures ran within the 1 s block: the machine is too loaded")
    }

    /// Rounds of ``repeatedFailuresAreThrottled()`` before the machine is called too loaded.
    private static let rounds = 5

    /// Ten wrong codes with HTTP Basic, then two more, the right code and the login form's right
    /// code; `false` when they were not all answered within the block the tenth started.
    private static func basicIsBlockedAfterTenFailures(_ server: ShareServerProcess) async throws -> Bool {
        let wrong = Credentials.header(ShareServerProcess.basic(user: "sandbox", password: "aaaa-bbbb-cccc"))
        var statuses: [Int] = []
        for _ in 0..<9 { statuses.append(try await server.send("GET", "/", credentials: wrong).status) }
        let tenthSent = ContinuousClock.now
        statuses.append(try await server.send("GET", "/", credentials: wrong).status)
        #expect(statuses == Array(repeating: 401, count: 10), "the first ten: \(statuses)")
        let more = [
            try await server.send("GET", "/", credentials: wrong).status,
            try await server.send("GET", "/", credentials: wrong).status,
        ]
        // While blocked, even the right code is refused (the exact header's fast path too).
        let right = try await server.send("GET", "/", credentials: .valid)
        // The login form has its own budget: the right code logs in.
        let form = try await server.send("POST", "/.sandbox/login", text: "code=\(server.code)", credentials: .none)
        #expect(form.status == 303 && form.header("Set-Cookie") != nil, "\(form)")
        guard ContinuousClock.now - tenthSent < FailureThrottle.firstBlock else { return false }
        #expect(more == [429, 429], "the 11th and 12th: \(more)")
        #expect(right.status == 429 && right.header("Retry-After") != nil, "\(right)")
        return true
    }

    /// Ten wrong codes through the login form, then one more and the right one; `false` when they
    /// were not all answered within the block the tenth started.
    private static func theFormIsBlockedAfterTenFailures(_ server: ShareServerProcess) async throws -> Bool {
        func login(_ code: String) async throws -> RawResponse {
            try await server.send("POST", "/.sandbox/login", text: "code=\(code)", credentials: .none)
        }
        var statuses: [Int] = []
        for index in 0..<9 { statuses.append(try await login("wrong-\(index)").status) }
        let tenthSent = ContinuousClock.now
        statuses.append(try await login("wrong-9").status)
        #expect(statuses == Array(repeating: 401, count: 10), "\(statuses)")
        let eleventh = try await login("wrong-10").status
        let blocked = try await login(server.code)
        guard ContinuousClock.now - tenthSent < FailureThrottle.firstBlock else { return false }
        #expect(eleventh == 429, "the 11th: \(eleventh)")
        #expect(blocked.status == 429 && blocked.header("Set-Cookie") == nil, "\(blocked)")
        return true
    }

    /// Login CSRF: a login post that a browser says comes from elsewhere (another site, another
    /// port of this host, an opaque origin) is refused before it is checked or counted, so no web
    /// page can get the owner's address throttled; the owner's right code then logs in.
    @Test func crossSiteLoginPostsAreRefusedBeforeTheyCount() async throws {
        try await ShareServerProcess.with { server in
            let elsewhere: [[(String, String)]] = [
                [("Sec-Fetch-Site", "cross-site")],
                [("Sec-Fetch-Site", "same-site"), ("Origin", "http://127.0.0.1:1")],
                [("Origin", "http://127.0.0.1:1")], [("Origin", "null")], [("Origin", "http://attacker.example")],
                [("Sec-Fetch-Site", "same-origin"), ("Origin", "http://attacker.example")],
            ]
            for headers in elsewhere {
                for attempt in 0..<3 {
                    let response = try await server.send(
                        "POST", "/.sandbox/login", headers: headers, text: "code=wrong-\(attempt)", credentials: .none)
                    #expect(response.status == 403 && response.header("Set-Cookie") == nil, "\(headers): \(response)")
                }
            }
            #expect(!server.log().contains("blocked"), "no failure counted: \(server.log().suffix(2000))")
            let owner = try await server.send(
                "POST", "/.sandbox/login",
                headers: [("Sec-Fetch-Site", "same-origin"), ("Origin", "http://\(server.host)")],
                text: "code=\(server.code)", credentials: .none)
            #expect(owner.status == 303 && owner.header("Set-Cookie") != nil, "\(owner)")
            // A same-origin form of a page that sends no referrer: the browser says `Origin: null`.
            let noReferrer = try await server.send(
                "POST", "/.sandbox/login", headers: [("Sec-Fetch-Site", "same-origin"), ("Origin", "null")],
                text: "code=\(server.code)", credentials: .none)
            #expect(noReferrer.status == 303, "\(noReferrer)")
        }
    }

    /// `Expect: 100-continue` is answered alike whatever the code while the address is throttled:
    /// no `100 Continue` for the right one (it was an oracle: only the right code got it).
    @Test func expectContinueRevealsNothingWhileThrottled() async throws {
        try await ShareServerProcess.with { server in
            let wrong = ShareServerProcess.basic(user: "sandbox", password: "aaaa-bbbb-cccc")
            // Not throttled: the right code is invited to send its body, a wrong one is not.
            #expect(try await Self.statusesOfExpectingPut(server, authorization: server.authorization) == [100, 201])
            #expect(try await Self.statusesOfExpectingPut(server, authorization: wrong) == [401])
            var compared = false
            for _ in 0..<5 where !compared {
                var status = 0
                for _ in 0..<20 where status != 429 {
                    status = try await server.send("GET", "/", credentials: .header(wrong)).status
                }
                #expect(status == 429, "the address is throttled")
                let right = try await Self.statusesOfExpectingPut(server, authorization: server.authorization)
                let guess = try await Self.statusesOfExpectingPut(server, authorization: wrong)
                guard right.last == 429, guess.last == 429 else { continue }  // the block ended meanwhile: again
                #expect(right == [429] && guess == [429], "right code: \(right), wrong code: \(guess)")
                compared = true
            }
            #expect(compared, "both guesses were answered while the address was throttled")
        }
    }

    /// The statuses answered to `PUT /guess.txt` whose head asks `Expect: 100-continue`; its five
    /// body bytes are sent only after a `100 Continue`.
    private static func statusesOfExpectingPut(
        _ server: ShareServerProcess, authorization: String
    ) async throws -> [Int] {
        let head =
            "PUT /guess.txt HTTP/1.1\r\nHost: \(server.host)\r\nAuthorization: \(authorization)\r\n"
            + "Expect: 100-continue\r\nContent-Length: 5\r\nConnection: close\r\n\r\n"
        let port = server.port
        let text = try await onOwnThread {
            let connection = try RawConnection(port: port, timeout: 20)
            defer { connection.close() }
            try connection.send(head)
            var received: [UInt8] = []
            var sentBody = false
            while true {
                let piece = try connection.receive()
                if piece.isEmpty { break }
                received += piece
                if !sentBody, String(decoding: received, as: UTF8.self).contains("100 Continue\r\n\r\n") {
                    try connection.send("hello")
                    sentBody = true
                }
            }
            return String(decoding: received, as: UTF8.self)
        }
        return text.components(separatedBy: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }.compactMap {
            Int($0.dropFirst("HTTP/1.1 ".count).prefix(3))
        }
    }

    /// Any spelling of the right credentials is accepted: the scheme's case, spaces around.
    @Test func otherSpellingsOfTheRightCredentialsAreAccepted() async throws {
        try await ShareServerProcess.with { server in
            let token =
                ShareServerProcess.basic(user: "sandbox", password: server.code).split(separator: " ").last ?? ""
            for header in ["basic \(token)", "BASIC \(token)", "Basic  \(token)", " Basic \(token) "] {
                let response = try await server.send(
                    "PROPFIND", "/", headers: [("Depth", "0")], credentials: .header(header))
                #expect(response.status == 207, "\(header.debugDescription): \(response)")
            }
        }
    }
}
