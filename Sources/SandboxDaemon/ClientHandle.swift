import NIOCore
import Sandbox
import SandboxTransfer
import Synchronization

/// A connected client as the daemon sees it: who it is, what its hello said, and its outbox.
///
/// Messages go into the outbox without waiting (the connection's writer task drains it in order),
/// so the daemon never waits on a slow client.
final class ClientHandle: Sendable {
    let id: Int
    let credentials: PeerCredentials
    let hello: ClientMessage.Hello
    /// The app this connection acts for, and what its confinement allows: from the system's
    /// `bind` frame, or, from an unconfined process, its own hello (it could touch the app's files
    /// itself). `nil` for a client that names no app (status only).
    let binding: AppBinding?
    private let outbox: Outbox
    private let channel: any Channel
    /// Whether the session's queued events are still being sent (``Daemon``'s replay): live
    /// events are not sent meanwhile — the replay reads them from the queue in their order.
    private let replaying = Mutex(false)

    init(
        id: Int, credentials: PeerCredentials, hello: ClientMessage.Hello, binding: AppBinding?, outbox: Outbox,
        channel: any Channel
    ) {
        self.id = id
        self.credentials = credentials
        self.hello = hello
        self.binding = binding
        self.outbox = outbox
        self.channel = channel
    }

    /// The session this client attached to, if it did.
    var attachedSession: SessionKey? {
        guard hello.attach, let app = hello.app, let session = hello.session else { return nil }
        return SessionKey(app: app, session: session)
    }

    /// Queues `message`. A client that does not read is closed once what waits for it is past
    /// ``ConnectionLimits/outboxMaximum`` bytes (or the daemon's budget): its queued events stay in
    /// the queue for its next attach; only progress is lost.
    func send(_ message: DaemonMessage) {
        if !outbox.send(message) { close() }
    }

    /// Queues an event that happened now, unless the queued events are being replayed (the
    /// replay sends a queued event in its order; progress, not queued, is dropped meanwhile).
    func sendLive(_ message: DaemonMessage) {
        guard !replaying.withLock({ $0 }) else { return }
        send(message)
    }

    /// Marks the replay of the queued events as under way (`true`) or over.
    func setReplaying(_ value: Bool) { replaying.withLock { $0 = value } }

    /// Runs `body` once what waits for this client is at most `limit` bytes: `true`, or `false`
    /// when the connection is ending (see ``Outbox/whenDrained(to:_:)``).
    func whenDrained(to limit: Int, _ body: @escaping @Sendable (Bool) -> Void) {
        outbox.whenDrained(to: limit, body)
    }

    /// Ends the connection after what is queued is written.
    func finish() { outbox.finish() }

    /// Closes the connection at once.
    func close() { channel.close(promise: nil) }
}
