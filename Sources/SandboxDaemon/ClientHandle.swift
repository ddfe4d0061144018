import NIOCore
import Sandbox
import SandboxTransfer

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

    /// Ends the connection after what is queued is written.
    func finish() { outbox.finish() }

    /// Closes the connection at once.
    func close() { channel.close(promise: nil) }
}
