import Foundation
import SandboxTesting
import Testing

/// The page's server contract over real HTTP against a real `sandbox share`: login, the session
/// cookie, CSRF, the JSON API's operations and refusals. (The browser itself: Browser/.)
@Suite struct WebPageTests {
    /// Logs in and returns the session cookie, the CSRF token and the session's folder (the app
    /// page's path, `/.sandbox/s/<scope>/`, where the API is too).
    func login(_ server: ShareServerProcess) async throws -> (cookie: String, csrf: String, base: String) {
        let response = try await server.send(
            "POST", "/.sandbox/login", headers: [("Content-Type", "application/x-www-form-urlencoded")],
            text: "code=\(server.code)", credentials: .none)
        #expect(response.status == 303, "\(response)")
        let setCookie = try #require(response.header("Set-Cookie"))
        let base = try #require(response.header("Location"))
        #expect(setCookie.contains("; Path=\(base);"), "the cookie is sent to the session's folder only: \(setCookie)")
        let cookie = String(setCookie.prefix { $0 != ";" })
        let page = try await server.send(
            "GET", base, headers: [("Accept", "text/html"), ("Cookie", cookie)], credentials: .none)
        #expect(page.status == 200, "\(page)")
        #expect(page.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
        let marker = "name=\"csrf-token\" content=\""
        let text = page.text
        let start = try #require(text.range(of: marker)).upperBound
        return (cookie, String(text[start...].prefix(64)), base)
    }

    @Test func logInUseTheAPIAndLogOut() async throws {
        try await ShareServerProcess.with { server in
            // Logged out: / sends a browser to the login page, the API answers 401.
            let home = try await server.send("GET", "/", headers: [("Accept", "text/html")], credentials: .none)
            #expect(home.status == 303 && home.header("Location") == "/.sandbox/login", "\(home)")
            let api = try await server.send("GET", "/.sandbox/api/list?path=%2F", credentials: .none)
            #expect(api.status == 401, "\(api)")
            // WebDAV clients still get WebDAV at /.
            let dav = try await server.send("PROPFIND", "/", headers: [("Depth", "0")])
            #expect(dav.status == 207, "\(dav)")
            // A wrong code is refused and sets no cookie.
            let wrong = try await server.send(
                "POST", "/.sandbox/login", text: "code=wrong-code-123", credentials: .none)
            #expect(wrong.status == 401 && wrong.header("Set-Cookie") == nil, "\(wrong)")
            // The page shows its message as text: no Markdown backticks around the command.
            #expect(wrong.text.contains("That is not the pairing code") && !wrong.text.contains("`"), "\(wrong.text)")

            let (cookie, csrf, base) = try await login(server)
            let session = [("Cookie", cookie), ("X-CSRF-Token", csrf)]
            let up = try await server.send(
                "PUT", "\(base)api/upload?path=%2FNew%20folder%2Fsub%2Fa.txt", headers: session, text: "first")
            #expect(up.status == 201 && up.text.contains("\"/New folder/sub/a.txt\""), "\(up)")
            let again = try await server.send(
                "PUT", "\(base)api/upload?path=%2FNew%20folder%2Fsub%2Fa.txt", headers: session, text: "second")
            #expect(again.status == 201 && again.text.contains("\"/New folder/sub/a 2.txt\""), "\(again)")
            #expect(server.contents("New folder/sub/a.txt") == "first")
            #expect(server.contents("New folder/sub/a 2.txt") == "second")

            let listing = try await server.send(
                "GET", "\(base)api/list?path=%2FNew%20folder%2Fsub", headers: [("Cookie", cookie)],
                credentials: .none)
            #expect(listing.status == 200 && listing.text.contains("\"a 2.txt\""), "\(listing)")

            let mkdir = try await server.send(
                "POST", "\(base)api/mkdir", headers: session, text: #"{"path": "/Archive"}"#, credentials: .none)
            #expect(mkdir.status == 201, "\(mkdir)")
            let taken = try await server.send(
                "POST", "\(base)api/mkdir", headers: session, text: #"{"path": "/Archive"}"#, credentials: .none)
            #expect(taken.status == 409 && taken.text.contains("name-taken"), "\(taken)")
            // The message names the shared folder as the page does, never as a bare "/".
            #expect(taken.text.contains("taken in Documents;") && !taken.text.contains("'/'"), "\(taken.text)")
            let move = try await server.send(
                "POST", "\(base)api/move", headers: session,
                text: #"{"from": "/New folder/sub/a.txt", "to": "/Archive/renamed.txt"}"#, credentials: .none)
            #expect(move.status == 200, "\(move)")
            #expect(server.contents("Archive/renamed.txt") == "first")
            let clash = try await server.send(
                "POST", "\(base)api/move", headers: session,
                text: #"{"from": "/New folder/sub/a 2.txt", "to": "/Archive/renamed.txt"}"#, credentials: .none)
            #expect(clash.status == 409 && clash.text.contains("taken in Documents/Archive;"), "\(clash)")
            #expect(
                server.contents("Archive/renamed.txt") == "first" && server.contents("New folder/sub/a 2.txt") != nil)

            let download = try await server.send(
                "GET", "\(base)download?path=%2FArchive%2Frenamed.txt", headers: [("Cookie", cookie)],
                credentials: .none)
            #expect(download.status == 200 && download.text == "first", "\(download)")
            #expect(download.header("Content-Disposition")?.hasPrefix("attachment") == true)

            let delete = try await server.send(
                "POST", "\(base)api/delete", headers: session, text: #"{"path": "/New folder"}"#,
                credentials: .none)
            #expect(delete.status == 204, "\(delete)")
            #expect(server.contents("New folder/sub/a 2.txt") == nil)

            let logout = try await server.send("POST", "\(base)logout", headers: session, credentials: .none)
            #expect(logout.status == 204 && logout.header("Set-Cookie")?.contains("Max-Age=0") == true, "\(logout)")
            let after = try await server.send(
                "GET", "\(base)api/list?path=%2F", headers: [("Cookie", cookie)], credentials: .none)
            #expect(after.status == 401, "\(after)")
        }
    }

    @Test func changesWithoutTheTokenOrFromAnotherSiteChangeNothing() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("keep.txt", "kept")
            let (cookie, csrf, base) = try await login(server)
            let attempts: [[(String, String)]] = [
                [("Cookie", cookie)],
                [("Cookie", cookie), ("X-CSRF-Token", String(repeating: "0", count: 64))],
                [("Cookie", cookie), ("X-CSRF-Token", csrf + "0")],
                [("Cookie", cookie), ("X-CSRF-Token", csrf), ("Sec-Fetch-Site", "cross-site")],
            ]
            for headers in attempts {
                let response = try await server.send(
                    "POST", "\(base)api/delete", headers: headers + [("Content-Type", "text/plain")],
                    text: #"{"path": "/keep.txt"}"#, credentials: .none)
                #expect(response.status == 403, "\(headers.map(\.0)): \(response)")
            }
            #expect(server.contents("keep.txt") == "kept")
            // A foreign Host (DNS rebinding) is refused before anything else.
            let rebound = try await server.send(
                "GET", "\(base)api/list?path=%2F", headers: [("Cookie", cookie)], credentials: .none,
                host: "attacker.example")
            #expect(rebound.status == 421, "\(rebound)")
        }
    }

    /// The session cookie's `Path` is the session's own random folder, so the browser never sends
    /// it to another service on this host (cookies ignore ports); and a cookie replayed anywhere
    /// else, with another session's folder, or with a browser's word that another site or origin
    /// sent it, reads nothing and gets no CSRF token.
    @Test func aSessionCookieAloneReadsNothing() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("kept.txt", "kept")
            let (cookie, csrf, base) = try await login(server)
            #expect(base.hasPrefix("/.sandbox/s/") && base.hasSuffix("/") && base.count == "/.sandbox/s/".count + 65)
            let html = ("Accept", "text/html")
            for target in [
                "/", "/.sandbox/", "/.sandbox/api/list?path=%2F", "/.sandbox/download?path=%2Fkept.txt", "/.sandbox/s/",
                "/.sandbox/s/\(String(repeating: "0", count: 64))/api/list?path=%2F", String(base.dropLast()),
            ] {
                let response = try await server.send(
                    "GET", target, headers: [html, ("Cookie", cookie), ("Sec-Fetch-Site", "same-origin")],
                    credentials: .none)
                #expect([303, 401].contains(response.status), "\(target): \(response)")
                #expect(!response.text.contains(csrf) && !response.text.contains("kept"), "\(target): \(response)")
            }
            // Two sessions: neither's cookie opens the other's folder.
            let (otherCookie, _, otherBase) = try await login(server)
            for (target, with) in [(otherBase, cookie), (base, otherCookie)] {
                let response = try await server.send(
                    "GET", target + "api/list?path=%2F", headers: [("Cookie", with)], credentials: .none)
                #expect(response.status == 401, "\(target): \(response)")
            }
            // From another site, another origin (another port of this host is the same site), an
            // opaque origin: refused even at the session's own folder, reads and changes alike.
            let elsewhere: [[(String, String)]] = [
                [("Sec-Fetch-Site", "cross-site")], [("Sec-Fetch-Site", "same-site")],
                [("Origin", "http://127.0.0.1:1")], [("Origin", "null")],
            ]
            for site in elsewhere {
                for target in [base, base + "api/list?path=%2F", base + "download?path=%2Fkept.txt", base + "events"] {
                    let response = try await server.send(
                        "GET", target, headers: [html, ("Cookie", cookie)] + site, credentials: .none)
                    #expect(response.status == 403, "\(site) \(target): \(response)")
                    #expect(!response.text.contains(csrf) && !response.text.contains("kept"), "\(response)")
                }
                let delete = try await server.send(
                    "POST", base + "api/delete", headers: [("Cookie", cookie), ("X-CSRF-Token", csrf)] + site,
                    text: #"{"path": "/kept.txt"}"#, credentials: .none)
                #expect(delete.status == 403, "\(site): \(delete)")
            }
            #expect(server.contents("kept.txt") == "kept")
            // The browser's own requests: same-origin, or a navigation the user typed (`none`).
            let typed = try await server.send(
                "GET", base, headers: [html, ("Cookie", cookie), ("Sec-Fetch-Site", "none")], credentials: .none)
            #expect(typed.status == 200 && typed.text.contains(csrf), "\(typed)")
            let own = try await server.send(
                "GET", base + "download?path=%2Fkept.txt",
                headers: [("Cookie", cookie), ("Sec-Fetch-Site", "same-origin"), ("Origin", "http://\(server.host)")],
                credentials: .none)
            #expect(own.status == 200 && own.text == "kept", "\(own)")
        }
    }

    @Test func hiddenAndHostilePathsAreRefused() async throws {
        try await ShareServerProcess.with { server in
            try server.plant(".secret", "hidden")
            let (cookie, csrf, base) = try await login(server)
            let session = [("Cookie", cookie), ("X-CSRF-Token", csrf)]
            for target in [
                "\(base)api/list?path=%2FInbox", "\(base)download?path=%2F.secret",
                "\(base)zip?path=%2FInbox",
            ] {
                let response = try await server.send("GET", target, headers: [("Cookie", cookie)], credentials: .none)
                #expect(response.status == 404, "\(target): \(response)")
            }
            for target in [
                "\(base)api/list?path=%2F..%2F..", "\(base)api/list?path=a", "\(base)api/list",
                "\(base)api/list?path=%2Fa%00b",
            ] {
                let response = try await server.send("GET", target, headers: [("Cookie", cookie)], credentials: .none)
                #expect(response.status == 400, "\(target): \(response)")
            }
            let hiddenUpload = try await server.send(
                "PUT", "\(base)api/upload?path=%2F.profile", headers: session, text: "x", credentials: .none)
            #expect(hiddenUpload.status == 404, "\(hiddenUpload)")
            let intoItself = try await server.send(
                "POST", "\(base)api/mkdir", headers: session, text: #"{"path": "/A"}"#, credentials: .none)
            #expect(intoItself.status == 201)
            let cycle = try await server.send(
                "POST", "\(base)api/move", headers: session, text: #"{"from": "/A", "to": "/A/B"}"#,
                credentials: .none)
            #expect(cycle.status == 409, "\(cycle)")
            let notJSON = try await server.send(
                "POST", "\(base)api/delete", headers: session, text: "{", credentials: .none)
            #expect(notJSON.status == 400, "\(notJSON)")
            #expect(server.contents(".secret") == "hidden")
        }
    }

    /// A name on disk that no request could name (a newline, a backslash) is left out of every
    /// listing instead of tripping the path's invariant (it trapped a debug build's PROPFIND).
    @Test func namesNoRequestCouldNameAreNotListed() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("line\nbreak.txt")
            try server.plant("back\\slash.txt")
            try server.plant("plain.txt")
            let propfind = try await server.send("PROPFIND", "/", headers: [("Depth", "1")])
            #expect(propfind.status == 207 && propfind.text.contains("plain.txt"), "\(propfind)")
            #expect(!propfind.text.contains("break.txt") && !propfind.text.contains("slash.txt"))
            let (cookie, _, base) = try await login(server)
            let listing = try await server.send(
                "GET", "\(base)api/list?path=%2F", headers: [("Cookie", cookie)], credentials: .none)
            #expect(listing.status == 200 && listing.text.contains("plain.txt"), "\(listing)")
            #expect(!listing.text.contains("break.txt") && !listing.text.contains("slash.txt"))
        }
    }

    /// Bodies the page reads whole are capped: a huge login form or JSON body is refused with 413
    /// before it is held, and changes nothing.
    @Test func oversizedFormsAndJSONAreRefused() async throws {
        try await ShareServerProcess.with { server in
            try server.plant("keep.txt", "kept")
            let form = try await server.send(
                "POST", "/.sandbox/login", text: "code=" + String(repeating: "a", count: 5000), credentials: .none)
            #expect(form.status == 413 && form.header("Set-Cookie") == nil, "\(form)")
            let (cookie, csrf, base) = try await login(server)
            let padding = String(repeating: " ", count: 20_000)
            let json = try await server.send(
                "POST", "\(base)api/delete", headers: [("Cookie", cookie), ("X-CSRF-Token", csrf)],
                text: #"{"path": "/keep.txt"}"# + padding, credentials: .none)
            #expect(json.status == 413, "\(json)")
            #expect(server.contents("keep.txt") == "kept")
        }
    }

    @Test func aReadOnlyShareRefusesThePagesChanges() async throws {
        try await ShareServerProcess.with(arguments: ["--read-only"]) { server in
            try server.plant("keep.txt", "kept")
            let (cookie, csrf, base) = try await login(server)
            let response = try await server.send(
                "POST", "\(base)api/delete", headers: [("Cookie", cookie), ("X-CSRF-Token", csrf)],
                text: #"{"path": "/keep.txt"}"#, credentials: .none)
            #expect(response.status == 403, "\(response)")
            #expect(server.contents("keep.txt") == "kept")
        }
    }

    @Test func theLiveViewReportsAChangeMadeBehindItsBack() async throws {
        try await ShareServerProcess.with { server in
            let (cookie, _, base) = try await login(server)
            let port = server.port
            let request = server.rawRequest(
                "GET", "\(base)events", headers: [("Cookie", cookie)], credentials: .none, close: false)
            // Connected and sent at once: a connection with no request for 5 s is closed (a CI run
            // under load took that long between two steps on threads of their own).
            let connection = try await onOwnThread { () throws -> RawConnection in
                let connection = try RawConnection(port: port, timeout: 20)
                do {
                    try connection.send(request)
                } catch {
                    connection.close()
                    throw error
                }
                return connection
            }
            defer { connection.close() }
            // Listening starts before the change: the first bytes are the stream's greeting.
            let greeting = try await onOwnThread { try connection.receive(until: ": listening") }
            #expect(greeting.contains("text/event-stream"), "\(greeting)")
            try server.plant("Reports/new.txt", "from the app")
            let events = try await onOwnThread { try connection.receive(until: "\"path\":\"/Reports\"") }
            #expect(events.contains("event: change"), "\(events)")
        }
    }
}
