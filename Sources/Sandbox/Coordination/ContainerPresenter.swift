import Foundation
import Glibc
import SandboxCore
import Synchronization

/// A live user of an app's containers, registered so that lifecycle operations on the app
/// (restore, update, uninstall, …) tell it before and after, and wait for it to let go where
/// ``CoordinationPolicy`` says so: the Linux counterpart of `NSFilePresenter`.
///
/// ```swift
/// let presenter = try ContainerPresenter(home: home, app: app, kind: .app, description: "my tool")
/// for await notice in presenter.notices {
///     switch notice.phase {
///     case .will:  // save and close what is open in the container, then say so
///         try store.close()
///         try presenter.relinquished(notice)
///     case .did:   // open the container again (a restore replaced it; an uninstall removed it)
///         container = try home.container(for: app)
///     }
/// }
/// ```
///
/// The registration lives as long as the value (or until ``close()``), and no longer than the
/// process: it is a file in the device's `Device/Coordination/<app>/presenters/` held with a lock
/// the kernel drops when the process dies, so a killed presenter never blocks an operation.
/// An operation waits for ``relinquished(_:)`` at most its timeout
/// (``SandboxHome/defaultCoordinationTimeout``), then goes on without the presenter's consent
/// only by refusing: a presenter that does not answer makes the operation fail, naming it.
public final class ContainerPresenter: Sendable {
    /// One step of an operation on the app, as the presenter is told of it.
    public struct Notice: Sendable, Equatable {
        /// The operation's number (increasing for the app).
        public var epoch: Int
        /// The operation.
        public var operation: CoordinatedOperation
        /// ``CoordinationState/Phase/will`` before it, ``CoordinationState/Phase/did`` after it.
        public var phase: CoordinationState.Phase
        /// How it ended (after it).
        public var outcome: CoordinationState.Outcome?
        /// What this presenter is asked to do.
        public var response: CoordinationPolicy.Response
    }

    /// The app whose containers the presenter uses.
    public let app: AppIdentifier
    /// What the presenter registered as.
    public let kind: PresenterKind
    /// The operations' notices, in order; ends on ``close()``. An operation waits for the
    /// presenters it asks to relinquish, so they always see its `will`; one that only notifies
    /// may end before a presenter looks (every 50 ms), which then sees only its `did`.
    public let notices: AsyncStream<Notice>

    private let folder: CoordinationFolder
    private let token: String
    private let lock: FileLock
    private let continuation: AsyncStream<Notice>.Continuation
    private let handler: (@Sendable (Notice) -> Void)?
    private let confirmsReacquisition: Bool
    private let state: Mutex<State>

    private struct State {
        var record: PresenterRecord
        var closed = false
    }

    /// Notices kept for a presenter that does not read them (a `sandbox run` launcher only holds
    /// its registration): the newest, so a slow reader still meets the latest operation.
    static let bufferedNotices = 16

    /// How often the presenter looks at the app's coordination state.
    static let pollInterval: Duration = .milliseconds(50)

    /// Registers a user of `app`'s containers.
    ///
    /// - Parameters:
    ///   - home: the device the app is installed on.
    ///   - app: the app whose containers are used.
    ///   - kind: what the user is: it decides how each operation treats it (``CoordinationPolicy``).
    ///   - confirmsReacquisition: whether the presenter calls ``reacquired(_:)`` once it has
    ///     taken in an operation's outcome: a completed operation then waits for it (up to
    ///     ``SandboxHome/reacquisitionTimeout``) before it returns.
    ///   - handler: when given, called with each notice on the presenter's own thread, in order,
    ///     instead of ``notices`` (which then stays empty), and answered for when it returns
    ///     (``relinquished(_:)`` after a `will` that asks it, ``reacquired(_:)`` after the `did`
    ///     when `confirmsReacquisition`): let go, or reopen, before returning. The answer never
    ///     waits for a thread of Swift's cooperative pool, which a busy process can hold past the
    ///     operation's timeout.
    ///   - description: what it is, as operations that refuse or wait name it ("sandbox share
    ///     on 127.0.0.1:8080").
    /// - Throws: file-system errors of the device's coordination folder;
    ///   ``/SandboxCore/SandboxError/Code/tooManyOpenFiles`` when no thread can be started.
    public init(
        home: SandboxHome, app: AppIdentifier, kind: PresenterKind, description: String,
        confirmsReacquisition: Bool = false, onNotice handler: (@Sendable (Notice) -> Void)? = nil
    ) throws(SandboxError) {
        self.handler = handler
        self.confirmsReacquisition = confirmsReacquisition
        self.app = app
        self.kind = kind
        folder = CoordinationFolder(root: home.root, app: app)
        try folder.prepare()
        token = "\(getpid())-\(RandomToken.make())"
        // Written and locked under a hidden name, then published: an operation never sees a
        // registration without its lock (which would look like a dead presenter).
        let staged = folder.presenters.appendingName(".new-\(token)")
        lock = try FileLock(root: home.root, path: staged)
        guard try lock.tryLock(.exclusive) else {
            throw SandboxError(
                .alreadyExists, "A new presenter file is locked already; register again.", path: staged.description)
        }
        let record = PresenterRecord(
            kind: kind, pid: getpid(), description: description, confirmsReacquisition: confirmsReacquisition)
        state = Mutex(State(record: record))
        (notices, continuation) = AsyncStream.makeStream(
            of: Notice.self, bufferingPolicy: .bufferingNewest(Self.bufferedNotices))
        lock.replaceContents(with: try folder.encode(record))
        try home.root.moveItem(from: staged, to: folder.presenters.appendingName(token))
        let seen = try folder.state()
        try OwnedThread.detached(name: "presenter") { [weak self] in
            var last = seen
            while true {
                // Strongly held only while looking: dropping the presenter ends the thread.
                guard let presenter = self, !presenter.isClosed else { return }
                last = presenter.look(after: last)
                OwnedThread.sleep(for: Self.pollInterval)
            }
        }
    }

    deinit { finish() }

    /// Tells the operation of `notice` that this presenter has let go (saved and closed what it
    /// had open in the container): the operation goes on when every presenter asked has.
    ///
    /// - Throws: file-system errors writing the answer.
    public func relinquished(_ notice: Notice) throws(SandboxError) {
        try folder.root.writeContents(Array(String(notice.epoch).utf8), to: folder.acks.appendingName(token))
    }

    /// Tells the operation of `notice` (a ``CoordinationState/Phase/did``) that this presenter
    /// has taken in its outcome — reopened the container — when it registered as confirming
    /// reacquisition.
    ///
    /// - Throws: file-system errors writing the answer.
    public func reacquired(_ notice: Notice) throws(SandboxError) {
        try folder.root.writeContents(Array(String(notice.epoch).utf8), to: folder.reacquisition(of: token))
    }

    /// Declares the container paths this presenter holds open (a file being written, a download
    /// being staged): purge never evicts them. Replaces the previous declaration. A path in the
    /// container of an App Group the app is a member of is declared as
    /// ``AppGroupIdentifier/heldPath(_:)`` makes it.
    ///
    /// - Throws: file-system errors rewriting the registration.
    public func hold(_ paths: [ContainerPath]) throws(SandboxError) {
        let record = state.withLock {
            $0.record.held = paths.map(\.description)
            return $0.record
        }
        let bytes = try folder.encode(record)
        // Through the locked descriptor: the registration is never replaced, only rewritten.
        lock.replaceContents(with: bytes)
    }

    /// Unregisters: operations no longer tell or wait for this presenter, and ``notices`` ends.
    public func close() {
        finish()
        for path in [
            folder.presenters.appendingName(token), folder.acks.appendingName(token), folder.reacquisition(of: token),
        ] {
            do throws(SandboxError) {
                try folder.root.removeItem(at: path)
            } catch {
                // Already gone, or unremovable: an unlocked file is a dead registration to every
                // operation, which removes it.
            }
        }
        lock.unlock()
    }

    private func finish() {
        let first = state.withLock { state in
            defer { state.closed = true }
            return !state.closed
        }
        if first { continuation.finish() }
    }

    private var isClosed: Bool { state.withLock(\.closed) }

    /// Yields a notice when the state moved on from `last`; returns what was seen.
    private func look(after last: CoordinationState?) -> CoordinationState? {
        let current: CoordinationState?
        do {
            current = try folder.state()
        } catch {
            return last  // a state being replaced or unreadable: the next look reads the next one
        }
        guard let current, current != last else { return last }
        let notice = Notice(
            epoch: current.epoch, operation: current.operation, phase: current.phase, outcome: current.outcome,
            response: CoordinationPolicy.response(to: current.operation, from: kind))
        guard let handler else {
            continuation.yield(notice)
            return current
        }
        handler(notice)
        // The handler has let go (or taken in the outcome) when it returns: answer for it. An
        // answer that cannot be written leaves the operation to fail, naming this presenter.
        do throws(SandboxError) {
            if notice.phase == .will, notice.response == .relinquish { try relinquished(notice) }
            if notice.phase == .did, notice.response == .relinquish, confirmsReacquisition { try reacquired(notice) }
        } catch {}
        return current
    }
}
