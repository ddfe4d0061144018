import Foundation
import HTTPTypes
import Hummingbird
import Sandbox

extension WebPage {
    /// The login page, with `message` (escaped) in its `login-error` element.
    func loginPage(message: String?, status: HTTPResponse.Status) -> Response {
        let template = String(decoding: assets.files["login.html"] ?? [], as: UTF8.self)
        let html = template.replacingOccurrences(of: "{{error}}", with: XMLText.escape(message ?? ""))
        return WebResponses.page(Array(html.utf8), status: status, type: "text/html; charset=utf-8")
    }

    /// The app page, with the session's CSRF token in its `csrf-token` meta element, and whether
    /// it is the owner's (who sees the devices section) in its `owner` one.
    func indexPage(_ session: WebSessions.Session) -> Response {
        let template = String(decoding: assets.files["index.html"] ?? [], as: UTF8.self)
        let html = template.replacingOccurrences(of: "{{csrf}}", with: session.csrfToken)
            .replacingOccurrences(of: "{{owner}}", with: session.owner && devices != nil ? "true" : "false")
        return WebResponses.page(Array(html.utf8), type: "text/html; charset=utf-8")
    }

    /// One of the page's static files.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` for a name that is not one of them.
    func asset(_ name: String) throws(SandboxError) -> Response {
        guard let bytes = assets.files[name], name != "index.html", name != "login.html" else {
            throw SandboxError(.notFound, "The page has no file named '\(name.prefix(100))'.")
        }
        return WebResponses.page(bytes, type: WebAssets.contentType(of: name))
    }

    /// `POST /.sandbox/login` with `code=…`: a session cookie and a redirect to the session's
    /// folder (the app page), or the login page again with what went wrong.
    ///
    /// A post that a browser says comes from another site or origin (``RequestSite``) is refused
    /// (403) before the code is read: a web page cannot spend the address's failure budget and so
    /// lock the owner out (login CSRF). The code is checked at the gate's login-form door.
    func login(_ request: Request, client: String) async -> Response {
        let opened: (token: String, session: WebSessions.Session)
        do throws(SandboxError) {
            try RequestSite.check(request, allowing: .sameOrigin)
            let body = try await DAVMethods.smallBody(of: request, limit: 4096, kind: "login form")
            let code = FormFields.value(of: "code", in: String(decoding: body, as: UTF8.self)) ?? ""
            try gate.admitLoginForm(code: code.trimmingCharacters(in: .whitespaces), client: client, now: .now)
            opened = try openSession(for: request, owner: true)
        } catch {
            let status = HTTPResponse.Status(code: error.code.httpStatus)
            let message =
                error.code == .unauthorized
                ? "That is not the pairing code. Type the code that “sandbox share” printed when it started."
                : error.message
            var response = loginPage(message: message, status: status)
            if let wait = error.retryAfter { response.headers[.retryAfter] = "\(wait.seconds)" }
            return response
        }
        let (token, session) = opened
        return WebResponses.redirect(
            to: SessionFolder.path(of: session.scope),
            headers: [
                .setCookie: SessionCookie.setting(token, scope: session.scope, secure: request.head.scheme == "https")
            ])
    }
}

/// `application/x-www-form-urlencoded` and query strings.
enum FormFields {
    /// The value of the first field `name` in `encoded` (`a=1&b=2`), decoded (`+` is a space),
    /// or `nil` when absent or not valid UTF-8 once decoded.
    static func value(of name: String, in encoded: String) -> String? {
        for pair in encoded.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, parts[0] == Substring(name) else { continue }
            return String(parts[1]).replacingOccurrences(of: "+", with: " ").removingPercentEncoding
        }
        return nil
    }
}
