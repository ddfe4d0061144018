import HTTPTypes
import Hummingbird
import Logging
import Sandbox

/// The server's one responder: checks every request (the `Host`, the throttle, the credentials),
/// hands it to the WebDAV methods, turns a ``/SandboxCore/SandboxError`` into its status and a short body, and
/// logs one line per request.
final class ShareResponder: Sendable {
    typealias Context = ShareRequestContext

    let methods: DAVMethods
    let gate: PairingGate
    let page: WebPage
    let logger: Logger

    /// A responder whose pairing code is checked at `gate` (which the connections' ``ExpectContinueHandler`` shares),
    /// with the page's `sessions` (kept by the responder that replaces this one after a restore).
    init(
        methods: DAVMethods, gate: PairingGate, sessions: WebSessions = WebSessions(), pairing: PairingLink? = nil,
        devices: DeviceSessions? = nil, logger: Logger
    ) {
        self.methods = methods
        self.gate = gate
        self.page = WebPage(
            methods: methods, sessions: sessions, assets: WebAssets.load(),
            feed: ChangeFeed(documents: methods.documents, logger: logger), gate: gate, pairing: pairing,
            devices: devices)
        self.logger = logger
    }

    /// A responder with a gate of its own for `credentials`.
    convenience init(methods: DAVMethods, credentials: ShareCredentials, logger: Logger) {
        self.init(methods: methods, gate: PairingGate(credentials: credentials, logger: logger), logger: logger)
    }

    /// Answers `request` on the connection's event loop when it is a quick one (WebDAV's GET, HEAD
    /// and OPTIONS: an `open`, an `fstat` and a read of cached bytes at most), and on the I/O
    /// engine's threads otherwise, its body too (a PROPFIND's is built as it is sent): a listing,
    /// an upload or a copy makes many blocking system calls, which would hold up every other
    /// connection on the same event loop — or, on Swift's cooperative pool (as many threads as
    /// cores), every task of the process.
    func respond(to request: Request, context: Context) async -> Response {
        if Self.isQuick(request) {
            return await answer(request, context: context)
        }
        var response = await IOEngine.shared.withTaskExecutor {
            await answer(request, context: context)
        }
        response.body = response.body.writtenOnEngine()
        return response
    }

    /// Whether `request` may run on the connection's event loop (see ``respond(to:context:)``).
    static func isQuick(_ request: Request) -> Bool {
        let method = request.method
        return (method == .get || method == .head || method == .options) && !WebPage.handles(request)
    }

    /// The response to `request` made at once on the connection's event loop, when it is a GET
    /// or HEAD of a small plain file the page cache holds (or a refusal of one:
    /// ``DAVMethods/immediateResponse(to:)``) from a client with the credentials; `nil` otherwise,
    /// the request then going to ``respond(to:context:)`` with nothing changed or counted: a
    /// request with wrong credentials or from a blocked address, whose failure the throttle
    /// counts, is always answered there.
    func immediateResponse(to request: Request, context: Context) -> ImmediateResponse? {
        let method = request.method
        guard method == .get || method == .head, !WebPage.handles(request) else { return nil }
        let start = ContinuousClock.now
        let authorization = request.headers.fieldValue(.authorization)
        guard gate.invitesBody(authorization: authorization, client: context.client, now: start) else { return nil }
        var response: ImmediateResponse
        do throws(SandboxError) {
            try admit(request, context: context, now: start)
        } catch {
            return nil  // blocked since, or another host: counted nowhere, answered by Hummingbird
        }
        do throws(SandboxError) {
            guard let immediate = try methods.immediateResponse(to: request) else { return nil }
            response = immediate
        } catch {
            response = errorResponse(error, request: request)
        }
        response.headers.append(Self.noSniff)
        log(request, status: response.status, headers: response.headers, client: context.client, since: start)
        return response
    }

    private func answer(_ request: Request, context: Context) async -> Response {
        let start = ContinuousClock.now
        var response: Response
        if WebPage.handles(request) {
            do throws(SandboxError) {
                try checkHost(request)
                response = try await page.respond(to: request, client: context.client, eventLoop: context.eventLoop)
            } catch {
                response = WebResponses.error(error)
            }
        } else {
            do {
                try admit(request, context: context, now: start)
                response = try await methods.respond(to: request, on: context.eventLoop)
            } catch {
                response = errorResponse(error, request: request).response
            }
        }
        response.headers.append(Self.noSniff)
        log(request, status: response.status, headers: response.headers, client: context.client, since: start)
        return response
    }

    /// `X-Content-Type-Options: nosniff`, on every response (no other code sets it).
    private static let noSniff = HTTPField(name: .xContentTypeOptions, value: "nosniff")

    /// Refuses the request unless it names this server and carries the credentials.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/misdirected`` for a foreign `Host`,
    ///   ``SandboxCore/SandboxError/Code/tooManyRequests`` while the client is blocked,
    ///   ``SandboxCore/SandboxError/Code/unauthorized`` without valid credentials.
    private func admit(_ request: Request, context: Context, now: ContinuousClock.Instant) throws(SandboxError) {
        try checkHost(request)
        try gate.admit(authorization: request.headers.fieldValue(.authorization), client: context.client, now: now)
    }

    /// Refuses a request for another host (a DNS-rebinding page, a misdirected client).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/misdirected``.
    private func checkHost(_ request: Request) throws(SandboxError) {
        let host = request.head.authority
        guard let host, methods.allowedAuthorities.contains(host.lowercased()) else {
            throw SandboxError(
                .misdirected,
                "This server does not answer for the host '\(host?.prefix(64) ?? "")'; use the URL it printed.")
        }
    }

    private func errorResponse(_ error: any Error, request: Request) -> ImmediateResponse {
        guard let error = error as? SandboxError else {
            logger.error("\(request.method) \(request.uri.path): \(error)")
            return .error(SandboxError(.internalError, "The server failed; see its log."))
        }
        if error.code == .internalError || error.code == .noSpace {
            logger.error("\(request.method) \(request.uri.path): \(error)")
        }
        return .error(error)
    }

    /// Logs `client METHOD /path status length milliseconds ms` (a pairing link's token left out:
    /// ``PairingToken/redacted(_:)``); nothing is formatted when the
    /// logger's level is above `info` (swift-log builds the message before it checks the level).
    private func log(
        _ request: Request, status: HTTPResponse.Status, headers: HTTPFields, client: String,
        since start: ContinuousClock.Instant
    ) {
        guard logger.logLevel <= .info else { return }
        let milliseconds = (ContinuousClock.now - start).clampedMilliseconds
        let length = headers.fieldValue(.contentLength) ?? "-"
        logger.info(
            "\(client) \(request.method.rawValue) \(PairingToken.redacted(request.uri.path)) \(status.code) \(length) \(milliseconds) ms"
        )
    }
}

extension ResponseBody {
    /// This body, written from the I/O engine's threads rather than from the connection's event
    /// loop (``EventLoopTaskExecutor``): for a body that makes blocking calls as it goes.
    func writtenOnEngine() -> ResponseBody {
        let body = self
        return ResponseBody(contentLength: body.contentLength) { writer in
            try await IOEngine.shared.withTaskExecutor {
                try await body.write(writer)
            }
        }
    }
}

extension Duration {
    /// Whole seconds, rounded up: for `Retry-After` and messages.
    var seconds: Int64 {
        let (whole, fraction) = components
        return whole + (fraction > 0 ? 1 : 0)
    }
}
