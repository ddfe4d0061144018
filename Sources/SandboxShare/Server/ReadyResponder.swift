import Hummingbird
import HummingbirdCore
import NIOHTTP1
import Synchronization

/// Holds the ``ShareResponder``, made once the server listens: its `Host` check needs the port,
/// which is known only then (`--port 0`); replaced after a restore, emptied when the folder is gone
/// (``ShareCoordinator``).
final class ResponderSlot: Sendable {
    private let responder = Mutex<ShareResponder?>(nil)

    func set(_ value: ShareResponder) { responder.withLock { $0 = value } }
    /// Nothing is served any more: every request gets 503 while the server stops.
    func clear() { responder.withLock { $0 = nil } }
    var value: ShareResponder? { responder.withLock { $0 } }
}

/// Answers each request of every connection: the slot's responder, or 503 in the instant before
/// it is filled (and once the share stopped serving); adds the `Date` field (``DateField``) and writes the response.
struct ReadyResponder: Sendable {
    let slot: ResponderSlot

    /// A response could not be written because the request could not be parsed: the connection
    /// is closed rather than answered twice.
    struct ResponseNotWritten: Error {}

    /// The response to `request` made at once on the connection's event loop
    /// (``ShareResponder/immediateResponse(to:context:)``), with its `Date`; `nil` when the request
    /// goes to ``respond(to:writer:context:)`` (as it does while the slot is empty).
    func immediateResponse(to request: Request, context: ShareRequestContext) -> ImmediateResponse? {
        guard var response = slot.value?.immediateResponse(to: request, context: context) else { return nil }
        response.headers.append(DateField.shared.current())
        return response
    }

    func respond(to request: Request, writer: consuming ResponseWriter, context: ShareRequestContext) async throws {
        var response: Response
        if let responder = slot.value {
            response = await responder.respond(to: request, context: context)
        } else {
            response = ShareResponses.empty(503)
        }
        response.headers.append(DateField.shared.current())
        do {
            try await writer.write(response: response.head, body: response.body)
        } catch is HTTPParserError {
            // Rethrown as is, Hummingbird's connection loop would answer it with a second response.
            throw ResponseNotWritten()
        }
    }
}
