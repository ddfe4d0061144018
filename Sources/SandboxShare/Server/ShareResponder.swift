import HTTPTypes
import Hummingbird
import Logging
import Synchronization

/// The server's one responder: checks every request (the `Host`, the throttle, the credentials),
/// hands it to the WebDAV methods, turns a ``ShareError`` into its status and a short body, and
/// logs one line per request.
final class ShareResponder: HTTPResponder, Sendable {
    typealias Context = ShareRequestContext

    let methods: DAVMethods
    let credentials: ShareCredentials
    let throttle: Mutex<FailureThrottle>
    let logger: Logger

    init(methods: DAVMethods, credentials: ShareCredentials, logger: Logger) {
        self.methods = methods
        self.credentials = credentials
        self.throttle = Mutex(FailureThrottle())
        self.logger = logger
    }

    func respond(to request: Request, context: Context) async throws -> Response {
        let start = ContinuousClock.now
        var response: Response
        do {
            try admit(request, context: context, now: start)
            response = try await methods.respond(to: request, on: context.eventLoop)
        } catch {
            response = errorResponse(error, request: request)
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        log(request, response, client: context.client, since: start)
        return response
    }

    /// Refuses the request unless it names this server and carries the credentials.
    ///
    /// - Throws: ``ShareError/Code/misdirected`` for a foreign `Host`,
    ///   ``ShareError/Code/tooManyRequests`` while the client is blocked,
    ///   ``ShareError/Code/unauthorized`` without valid credentials.
    private func admit(_ request: Request, context: Context, now: ContinuousClock.Instant) throws(ShareError) {
        let host = request.head.authority
        guard let host, methods.allowedAuthorities.contains(host.lowercased()) else {
            throw ShareError(
                .misdirected,
                "This server does not answer for the host '\(host?.prefix(64) ?? "")'; use the URL it printed.")
        }
        if let wait = throttle.withLock({ $0.blockRemaining(for: context.client, now: now) }) {
            var error = ShareError(
                .tooManyRequests, "Too many failed logins from \(context.client); retry in \(wait.seconds) s.")
            error.retryAfter = wait
            throw error
        }
        let given = BasicAuthorization(header: request.headers[.authorization])
        guard let given, credentials.match(user: given.user, password: given.password) else {
            if given != nil {
                let block = throttle.withLock { $0.recordFailure(from: context.client, now: now) }
                if let block {
                    logger.warning(
                        "Login failures from \(context.client): blocked for \(block.seconds) s",
                        metadata: ["client": "\(context.client)"])
                }
            }
            throw ShareError(
                .unauthorized, "Log in with the user name and pairing code that `sandbox share` printed.")
        }
        throttle.withLock { $0.recordSuccess(from: context.client) }
    }

    private func errorResponse(_ error: any Error, request: Request) -> Response {
        guard let error = error as? ShareError else {
            logger.error("\(request.method) \(request.uri.path): \(error)")
            return ShareResponses.error(ShareError(.internalError, "The server failed; see its log."))
        }
        if error.code == .internalError || error.code == .noSpace {
            logger.error("\(request.method) \(request.uri.path): \(error)")
        }
        return ShareResponses.error(error)
    }

    private func log(_ request: Request, _ response: Response, client: String, since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        let milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
        let length = response.headers[.contentLength] ?? "-"
        logger.info(
            "\(client) \(request.method) \(request.uri.path) \(response.status.code) \(length) \(Int(milliseconds)) ms")
    }
}

extension Duration {
    /// Whole seconds, rounded up: for `Retry-After` and messages.
    var seconds: Int64 {
        let (whole, fraction) = components
        return whole + (fraction > 0 ? 1 : 0)
    }
}
