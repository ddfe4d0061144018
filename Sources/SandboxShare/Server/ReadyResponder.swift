import Hummingbird
import Synchronization

/// Holds the ``ShareResponder``, made once the server listens: its `Host` check needs the port,
/// which is known only then (`--port 0`).
final class ResponderSlot: Sendable {
    private let responder = Mutex<ShareResponder?>(nil)

    func set(_ value: ShareResponder) { responder.withLock { $0 = value } }
    var value: ShareResponder? { responder.withLock { $0 } }
}

/// The application's responder: the slot's, or 503 in the instant before it is filled.
struct ReadyResponder: HTTPResponder {
    typealias Context = ShareRequestContext
    let slot: ResponderSlot

    func respond(to request: Request, context: Context) async throws -> Response {
        guard let responder = slot.value else {
            return ShareResponses.empty(503)
        }
        return await responder.respond(to: request, context: context)
    }
}
