import HTTPTypes
import Hummingbird
import Sandbox

extension WebPage {
    /// `GET /.sandbox/pair/<token>`: the pairing link. The first visit in time logs the browser in
    /// (a session, as the login form opens) and is sent at once to `paired` in its session's folder,
    /// so the token leaves the address bar; every later one gets a page saying the link was used
    /// (or expired), never a session. A token that is not the link's counts as a failed login at the
    /// gate's pairing door (``PairingGate/Door/pairingLink``).
    ///
    /// Every answer carries `Referrer-Policy: no-referrer`: the token in the address is sent to no
    /// one, the redirect's target included.
    func pair(_ request: Request, token: Substring, client: String) -> Response {
        let now = ContinuousClock.now
        guard request.method == .get else {
            return pairingPage(
                title: "Open this link in a browser",
                text: "A pairing link logs in the browser that opens it, once.", status: .methodNotAllowed)
        }
        do throws(SandboxError) {
            try RequestSite.check(request, allowing: .sameOriginOrTyped)
            try gate.checkPairingLink(client: client, now: now)
        } catch {
            var response = pairingPage(
                title: "Pairing refused", text: error.message, status: HTTPResponse.Status(code: error.code.httpStatus))
            if let wait = error.retryAfter { response.headers[.retryAfter] = "\(wait.seconds)" }
            return response
        }
        switch pairing?.claim(token, now: now) ?? .unknown {
        case .paired:
            let cookie: String
            let session: WebSessions.Session
            do throws(SandboxError) {
                (cookie, session) = try openSession(for: request, owner: false)
            } catch {
                return pairingPage(
                    title: "Pairing failed", text: error.message,
                    status: HTTPResponse.Status(code: error.code.httpStatus))
            }
            return WebResponses.redirect(
                to: SessionFolder.path(of: session.scope) + "paired",
                headers: [
                    .setCookie: SessionCookie.setting(
                        cookie, scope: session.scope, secure: request.head.scheme == "https"),
                    .referrerPolicy: "no-referrer",
                ])
        case .used:
            return pairingPage(
                title: "This pairing link was used",
                text: "A pairing link logs in one browser, once, and this one already did. Log in with the "
                    + "pairing code instead, or restart the share for a new link.",
                status: .gone)
        case .expired:
            return pairingPage(
                title: "This pairing link expired",
                text: "A pairing link works for \(PairingToken.lifetime.seconds / 60) minutes after the share "
                    + "starts. Log in with the pairing code instead, or restart the share for a new link.",
                status: .gone)
        case .unknown:
            gate.recordPairingLinkFailure(client: client, now: now)
            return pairingPage(
                title: "This is not a pairing link of this share",
                text: "Scan the QR code the share shows now, or log in with the pairing code.", status: .notFound)
        }
    }

    /// `GET /.sandbox/s/<scope>/paired`: where a pairing link sends the browser it logged in,
    /// with the certificate's fingerprint to compare over HTTPS, and the way on to the documents.
    func pairedPage() -> Response {
        var text = "This browser is logged in to the share until the share stops or it is idle for 12 hours."
        if let fingerprint = pairing?.certificateFingerprint {
            text += " Check that the certificate's SHA-256 fingerprint, "
            text += fingerprint
            text += ", is the one the share printed: if it is not, another machine is in between; close this page."
        }
        return pairingPage(title: "Paired", text: text, status: .ok, next: ("./", "Open the documents"))
    }

    /// A small page of the pairing link's: `title`, `text` (both escaped), and a link to `next` or
    /// to the login page.
    private func pairingPage(
        title: String, text: String, status: HTTPResponse.Status, next: (href: String, label: String)? = nil
    ) -> Response {
        let link = next ?? ("/.sandbox/login", "Log in with the pairing code")
        let html = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(XMLText.escape(title)) · Sandbox</title>
            <link rel="icon" href="data:,">
            <link rel="stylesheet" href="/.sandbox/static/app.css">
            </head>
            <body class="login">
            <main>
              <h1 id="pairing-title">\(XMLText.escape(title))</h1>
              <p id="pairing-text">\(XMLText.escape(text))</p>
              <p><a id="pairing-next" href="\(XMLText.escape(link.href))">\(XMLText.escape(link.label))</a></p>
            </main>
            </body>
            </html>

            """
        var response = WebResponses.page(Array(html.utf8), status: status, type: "text/html; charset=utf-8")
        response.headers[.referrerPolicy] = "no-referrer"
        return response
    }
}
