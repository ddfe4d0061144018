import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Sandbox

/// The web page on the same server as WebDAV: everything under ``prefix`` (a dot-name, so never a
/// Documents path), and `/` for a browser (`Accept: text/html`). The contract the page's script
/// is written to is in the SandboxShare documentation ("The web page").
///
/// A browser logs in with the pairing code and then carries an HttpOnly, SameSite=Strict session
/// cookie; every change it asks for also carries the session's CSRF token. Every file operation
/// is one of ``DAVMethods``' (the same checks, locks and confinement as WebDAV).
struct WebPage: Sendable {
    static let prefix = "/.sandbox/"

    let methods: DAVMethods
    let sessions: WebSessions
    let assets: WebAssets
    let feed: ChangeFeed
    /// Checks the pairing code typed on the login page, with the same throttle as HTTP Basic.
    let gate: PairingGate
    /// The folders uploads in flight write into (a failed one removes the folders it made).
    let uploads = UploadFolders()

    /// Whether `request` is the page's rather than WebDAV's.
    static func handles(_ request: Request) -> Bool {
        let path = request.uri.path
        if path.hasPrefix(prefix) { return true }
        guard path == "/", request.method == .get || request.method == .head else { return false }
        return request.headers[values: .accept].contains { $0.contains("text/html") }
    }

    /// The page's answer to `request`.
    ///
    /// - Throws: ``ShareError``, answered as JSON: `unauthorized` without a session,
    ///   `forbidden` for a change without the CSRF token or on a read-only share, `not-found`
    ///   for an unknown address, and the errors of the operation asked for.
    func respond(to request: Request, client: String, eventLoop: any EventLoop) async throws(ShareError) -> Response {
        let path = request.uri.path
        let method = request.method
        let isRead = method == .get || method == .head
        if let missing = assets.missingReason { throw ShareError(.internalError, missing) }
        if path == "/.sandbox/login" {
            if isRead { return loginPage(message: nil, status: .ok) }
            if method == .post { return await login(request, client: client) }
        }
        if isRead, path.hasPrefix(Self.prefix + "static/") {
            return try asset(String(path.dropFirst((Self.prefix + "static/").count)))
        }
        let token = SessionCookie.token(in: request.headers)
        guard let token, let session = sessions.session(for: token) else {
            if path == "/" { return WebResponses.redirect(to: "/.sandbox/login") }
            throw ShareError(
                .unauthorized, "Log in first: open this server's address in a browser and type the pairing code.")
        }
        if !isRead { try Self.checkCSRF(request, session) }
        switch (method, path) {
        case (.get, "/"), (.head, "/"): return indexPage(session)
        case (.post, "/.sandbox/logout"):
            sessions.close(token)
            return ShareResponses.empty(204, headers: [.setCookie: SessionCookie.clearing])
        case (.get, "/.sandbox/api/list"): return try list(request)
        case (.get, "/.sandbox/api/storage"): return try storage()
        case (.put, "/.sandbox/api/upload"): return try await upload(request)
        case (.post, "/.sandbox/api/mkdir"): return try await makeFolder(request)
        case (.post, "/.sandbox/api/move"): return try await move(request)
        case (.post, "/.sandbox/api/delete"): return try await delete(request)
        case (.get, "/.sandbox/download"), (.head, "/.sandbox/download"):
            return try await download(request, eventLoop: eventLoop)
        case (.get, "/.sandbox/zip"): return try zip(request, eventLoop: eventLoop)
        case (.get, "/.sandbox/events"): return try events()
        default:
            throw ShareError(.notFound, "The page has nothing at \(method) \(path.prefix(200)).")
        }
    }

    /// A change must carry the session's CSRF token (`X-CSRF-Token`), which only the page knows;
    /// a browser that says the request comes from another site (`Sec-Fetch-Site`) is refused too.
    ///
    /// - Throws: ``ShareError/Code/forbidden``.
    static func checkCSRF(_ request: Request, _ session: WebSessions.Session) throws(ShareError) {
        if let site = request.headers.fieldValue(.secFetchSite), site != "same-origin" {
            throw ShareError(.forbidden, "A change from another site (\(site.prefix(32))) is refused.")
        }
        let given = Array((request.headers.fieldValue(.xCSRFToken) ?? "").utf8)
        let expected = Array(session.csrfToken.utf8)
        var difference = UInt8(given.count == expected.count ? 0 : 1)
        for (a, b) in Swift.zip(given, expected) { difference |= a ^ b }
        guard difference == 0 else {
            throw ShareError(.forbidden, "The request lacks this page's CSRF token; reload the page and try again.")
        }
    }
}
