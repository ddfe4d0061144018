import Foundation
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

    /// After 10 failures from one address, the 11th attempt gets 429.
    @Test func repeatedFailuresAreThrottled() async throws {
        try await ShareServerProcess.with { server in
            let wrong = Credentials.header(ShareServerProcess.basic(user: "sandbox", password: "aaaa-bbbb-cccc"))
            var statuses: [Int] = []
            for _ in 0..<12 { statuses.append(try await server.send("GET", "/", credentials: wrong).status) }
            #expect(Array(statuses.prefix(10)) == Array(repeating: 401, count: 10), "the first ten: \(statuses)")
            #expect(statuses.suffix(2) == [429, 429], "the 11th and 12th: \(statuses)")
            // While blocked, even the right code is refused (the exact header's fast path too),
            // and so is the web page's login form.
            let right = try await server.send("GET", "/", credentials: .valid)
            #expect(right.status == 429 && right.header("Retry-After") != nil, "\(right)")
            let form = try await server.send(
                "POST", "/.sandbox/login", text: "code=\(server.code)", credentials: .none)
            #expect(form.status == 429 && form.header("Set-Cookie") == nil, "\(form)")
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
