import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Sandbox

/// The web page on the same server as WebDAV: everything under ``prefix`` (a dot-name, so never a
/// Documents path), and `/` for a browser (`Accept: text/html`). The contract the page's script
/// is written to is in the SandboxShare documentation ("The web page").
///
/// A browser logs in with the pairing code at `/.sandbox/login` and is sent to its session's own
/// random folder (``SessionFolder``, `/.sandbox/s/<scope>/`), where the app page and its API are;
/// its HttpOnly, SameSite=Strict session cookie is sent to that folder only. Every request there
/// needs the cookie of that very session, must not come from another site or origin
/// (``RequestSite``), and a change also carries the session's CSRF token. Every file operation is
/// one of ``DAVMethods``' (the same checks, locks and confinement as WebDAV).
struct WebPage: Sendable {
    static let prefix = "/.sandbox/"

    let methods: DAVMethods
    let sessions: WebSessions
    let assets: WebAssets
    let feed: ChangeFeed
    /// Checks the pairing code typed on the login page (its own failure budget, the same policy as HTTP Basic).
    let gate: PairingGate
    /// The pairing link of this run (``PairingLink``), if the share has one.
    var pairing: PairingLink? = nil
    /// The sessions as devices the owner lists and revokes (``DeviceSessions``), if kept.
    var devices: DeviceSessions? = nil
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
    /// - Throws: ``/SandboxCore/SandboxError``, answered as JSON: `unauthorized` without the session of the
    ///   folder asked for, `forbidden` for a request from another site or origin, a change without
    ///   the CSRF token or on a read-only share, `not-found` for an unknown address, and the
    ///   errors of the operation asked for.
    func respond(to request: Request, client: String, eventLoop: any EventLoop) async throws(SandboxError) -> Response {
        let path = request.uri.path
        let method = request.method
        let isRead = method == .get || method == .head
        if let missing = assets.missingReason { throw SandboxError(.internalError, missing) }
        if path == "/.sandbox/login" {
            if isRead { return loginPage(message: nil, status: .ok) }
            if method == .post { return await login(request, client: client) }
        }
        if path.hasPrefix(PairingToken.prefix) {
            return pair(request, token: path.dropFirst(PairingToken.prefix.count), client: client)
        }
        if isRead, path.hasPrefix(Self.prefix + "static/") {
            return try asset(String(path.dropFirst((Self.prefix + "static/").count)))
        }
        guard let (scope, rest) = SessionFolder.split(path) else {
            // `/` and the rest never see the cookie (its `Path` is the session's folder).
            if path == "/" { return WebResponses.redirect(to: "/.sandbox/login") }
            throw Self.loggedOut
        }
        let token = SessionCookie.token(in: request.headers)
        guard let token, let session = sessions.session(for: token, in: scope), isListed(token) else {
            if rest.isEmpty && isRead { return WebResponses.redirect(to: "/.sandbox/login") }
            throw Self.loggedOut
        }
        try RequestSite.check(request, allowing: isRead ? .sameOriginOrTyped : .sameOrigin)
        if !isRead { try Self.checkCSRF(request, session) }
        switch (method, rest) {
        case (.get, ""), (.head, ""): return indexPage(session)
        case (.get, "paired"), (.head, "paired"): return pairedPage()
        case (.post, "logout"):
            sessions.close(token)
            try devices?.remove(token: token)
            return ShareResponses.empty(
                204,
                headers: [
                    .setCookie: SessionCookie.clearing(scope: session.scope, secure: request.head.scheme == "https")
                ])
        case (.get, "api/list"): return try list(request)
        case (.get, "api/storage"): return try storage()
        case (.get, "api/devices"): return try deviceList(session, token: token)
        case (.post, "api/devices/revoke"): return try await revokeDevice(request, session, token: token)
        case (.put, "api/upload"):
            return try await methods.writes.admitting { ticket throws(SandboxError) in
                try await upload(request, ticket: ticket)
            }
        case (.post, "api/mkdir"):
            return try await methods.writes.admitting { _ throws(SandboxError) in try await makeFolder(request) }
        case (.post, "api/move"):
            return try await methods.writes.admitting { _ throws(SandboxError) in try await move(request) }
        case (.post, "api/delete"):
            return try await methods.writes.admitting { _ throws(SandboxError) in try await delete(request) }
        case (.get, "download"), (.head, "download"):
            return try await download(request, eventLoop: eventLoop)
        case (.get, "zip"): return try await zip(request, eventLoop: eventLoop)
        case (.get, "events"): return try events()
        default:
            throw SandboxError(.notFound, "The page has nothing at \(method) \(path.prefix(200)).")
        }
    }

    /// Whether the session of `token` is still on the device list (not revoked); a revoked one ends.
    private func isListed(_ token: String) -> Bool {
        guard let devices, !devices.contains(token: token) else { return true }
        sessions.close(token)
        return false
    }

    /// Opens a session for the browser of `request` and lists it as a device; `owner` when it
    /// logged in with the pairing code (see ``WebSessions/Session/owner``).
    ///
    /// - Throws: the errors of writing the device list (the session is closed then).
    func openSession(
        for request: Request, owner: Bool
    ) throws(SandboxError) -> (token: String, session: WebSessions.Session) {
        let opened = sessions.open(owner: owner)
        do throws(SandboxError) {
            try devices?.add(token: opened.token, userAgent: request.headers[.userAgent])
        } catch {
            sessions.close(opened.token)
            throw error
        }
        return opened
    }

    /// The answer to a request without a live session for where it goes.
    static let loggedOut = SandboxError(
        .unauthorized, "Log in first: open this server's address in a browser and type the pairing code.")

    /// A change must carry the session's CSRF token (`X-CSRF-Token`), which only the page knows.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/forbidden``.
    static func checkCSRF(_ request: Request, _ session: WebSessions.Session) throws(SandboxError) {
        let given = (request.headers.fieldValue(.xCSRFToken) ?? "").utf8
        guard ConstantTime.equal(given, session.csrfToken.utf8) else {
            throw SandboxError(.forbidden, "The request lacks this page's CSRF token; reload the page and try again.")
        }
    }
}
