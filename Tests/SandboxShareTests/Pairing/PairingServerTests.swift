import Foundation
import SandboxTesting
import Testing

/// The pairing link over real HTTP against a real `sandbox share`: it logs in once, never again,
/// never in parallel twice, and its token stays out of the access log.
@Suite struct PairingServerTests {
    /// The path of the pairing link `server` printed (`/.sandbox/pair/<token>`).
    static func pairingPath(_ server: ShareServerProcess) throws -> String {
        let text = try server.process.standardOutput()
        let link = try #require(ShareServerProcess.value(after: "Pair a phone:", in: text), "\(text)")
        let components = try #require(URLComponents(string: link))
        #expect(link.hasPrefix(server.url), "\(link) is on the share's URL \(server.url)")
        return components.path
    }

    @Test func theLinkLogsInOnceThenSaysItWasUsed() async throws {
        try await ShareServerProcess.with { server in
            let path = try Self.pairingPath(server)
            let token = String(path.dropFirst("/.sandbox/pair/".count))
            #expect(token.count == 43)
            let first = try await server.send("GET", path, headers: [("Sec-Fetch-Site", "none")], credentials: .none)
            #expect(first.status == 303, "\(first)")
            #expect(first.header("Referrer-Policy") == "no-referrer")
            let location = try #require(first.header("Location"))
            #expect(location.hasPrefix("/.sandbox/s/") && location.hasSuffix("/paired"), "\(location)")
            let setCookie = try #require(first.header("Set-Cookie"))
            let cookie = String(setCookie.prefix { $0 != ";" })
            // The session works: the paired page, then the app page.
            let paired = try await server.send("GET", location, headers: [("Cookie", cookie)], credentials: .none)
            #expect(paired.status == 200 && paired.text.contains("This browser is logged in"), "\(paired)")
            let base = String(location.dropLast("paired".count))
            let app = try await server.send("GET", base, headers: [("Cookie", cookie)], credentials: .none)
            #expect(app.status == 200 && app.text.contains("csrf-token"), "\(app)")
            // A second visit (another browser, or the same): a page saying so, no session.
            let second = try await server.send("GET", path, credentials: .none)
            #expect(second.status == 410 && second.header("Set-Cookie") == nil, "\(second)")
            #expect(second.text.contains("This pairing link was used") && !second.text.contains("login-form"))
            #expect(second.header("Referrer-Policy") == "no-referrer")
            // The access log has every visit, never the token.
            let logged = await eventually(timeout: .seconds(30)) {
                server.log().components(separatedBy: "GET /.sandbox/pair/…").count - 1 >= 2
            }
            #expect(logged, "\(server.log())")
            #expect(!server.log().contains(token))
        }
    }

    /// Two requests with the token at once, each on its own connection: exactly one logs in.
    @Test func parallelVisitsLetExactlyOneIn() async throws {
        try await ShareServerProcess.with { server in
            let path = try Self.pairingPath(server)
            async let a = server.send("GET", path, credentials: .none)
            async let b = server.send("GET", path, credentials: .none)
            let statuses = try await [a.status, b.status].sorted()
            #expect(statuses == [303, 410], "\(statuses)")
        }
    }

    /// Tokens of the wrong length, not base64url, or simply wrong: 404, no session; each counts
    /// at the gate, which blocks the address after its allowance (429) even for the right token.
    @Test func wrongTokensAreRefusedAndThrottled() async throws {
        try await ShareServerProcess.with { server in
            let path = try Self.pairingPath(server)
            let token = String(path.dropFirst("/.sandbox/pair/".count))
            let wrong = [
                "short", String(repeating: "A", count: 44), String(token.dropLast()) + "=",
                String(token.dropLast()) + "%2B", (token.hasPrefix("A") ? "B" : "A") + token.dropFirst(),
                token + "/x",
            ]
            for candidate in wrong {
                let response = try await server.send("GET", "/.sandbox/pair/" + candidate, credentials: .none)
                #expect(response.status == 404 && response.header("Set-Cookie") == nil, "\(candidate): \(response)")
            }
            // The first block lasts 1 s and each later one longer: on a loaded machine the right
            // token may come after a block has ended (then it logs in, rightly), so the address is
            // blocked again, for longer, until the right token is seen refused inside a block.
            var refusedWhileBlocked = false
            for _ in 0..<6 where !refusedWhileBlocked {
                var blocked = false
                for _ in 0..<10 where !blocked {
                    let response = try await server.send("GET", "/.sandbox/pair/short", credentials: .none)
                    blocked = response.status == 429
                    #expect(response.status == 404 || blocked, "\(response)")
                }
                #expect(blocked, "the address is blocked after its allowance of failures")
                let right = try await server.send("GET", path, credentials: .none)
                if right.status == 429 {
                    #expect(right.header("Retry-After") != nil, "\(right)")
                    refusedWhileBlocked = true
                }
            }
            #expect(refusedWhileBlocked, "the right token was never refused while the address was blocked")
            // The login form has a budget of its own: the owner can still log in with the code.
            let login = try await server.send(
                "POST", "/.sandbox/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
                text: "code=\(server.code)", credentials: .none)
            #expect(login.status == 303, "\(login)")
        }
    }
}
