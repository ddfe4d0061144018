import Logging
import Sandbox
import Synchronization

/// The share as a live user of its app's container: a ``/Sandbox/ContainerPresenter`` of kind
/// ``/Sandbox/PresenterKind/share``, registered while the server runs, following the lifecycle
/// operations on the app as ``/Sandbox/CoordinationPolicy`` asks.
///
/// Each notice is handled on the presenter's own thread and answered when handled, never from a
/// task of Swift's cooperative pool: a process whose pool is busy (every thread blocked in file
/// work) still answers an operation within its timeout.
///
/// - Before an operation it is asked to relinquish for (restore, uninstall, the device locking):
///   changes are refused (503, ``WriteGate``) while reads go on; the changes in flight
///   end, or are cut at ``drainLimit``; then the share answers that it let go.
/// - After it: a completed restore has the share serve the restored Documents (opened as at
///   start: a Documents that is a symbolic link stops the share with that refusal, never serving
///   the old tree); a completed uninstall stops the share; anything else takes changes again on
///   the same folder.
final class ShareCoordinator: Sendable {
    /// How the following of operations ended.
    enum Ending: Sendable {
        /// The server stopped (``close()``).
        case closed
        /// The app was uninstalled: the share stops, successfully.
        case uninstalled
        /// The share cannot go on serving (a restored Documents it cannot open).
        case failed(SandboxError)
    }

    let home: SandboxHome
    let app: AppIdentifier
    let slot: ResponderSlot
    let logger: Logger

    private struct State {
        var presenter: ContainerPresenter?
        /// A restored Documents is served: the one opened at start is not.
        var reopened = false
        var closed = false
    }

    private let state = Mutex(State())
    private let endings: AsyncStream<Ending>
    private let ending: AsyncStream<Ending>.Continuation

    /// How long the share lets changes in flight run once asked to let go: the operations' usual
    /// wait (``/Sandbox/SandboxHome/defaultCoordinationTimeout``) less a margin for the answer
    /// to reach them.
    static let drainLimit = SandboxHome.defaultCoordinationTimeout - .seconds(2)

    init(home: SandboxHome, app: AppIdentifier, slot: ResponderSlot, logger: Logger) {
        self.home = home
        self.app = app
        self.slot = slot
        self.logger = logger
        (endings, ending) = AsyncStream.makeStream(of: Ending.self, bufferingPolicy: .bufferingOldest(1))
    }

    /// Registers the share as `description` ("sandbox share on 127.0.0.1:8080"), then opens
    /// Documents afresh — a restore that ended before the registration is served this way; one
    /// that ends after it is told — and serves it through `factory`.
    ///
    /// - Throws: the registration's file-system errors; the errors of
    ///   ``ShareServer/openDocuments(of:)``.
    func start(description: String, factory: ResponderFactory) async throws(SandboxError) {
        let (home, app) = (self.home, self.app)
        try await IOEngine.shared.withTaskExecutor { () throws(SandboxError) in
            let presenter = try ContainerPresenter(
                home: home, app: app, kind: .share, description: description, confirmsReacquisition: true
            ) { notice in self.take(notice, factory: factory) }
            let responder: ShareResponder
            do throws(SandboxError) {
                responder = factory.responder(serving: try ShareServer.openDocuments(of: try home.container(for: app)))
            } catch {
                presenter.close()
                throw error
            }
            let kept = self.state.withLock { state -> Bool in
                guard !state.closed else { return false }
                state.presenter = presenter
                // Unless a restore that ended meanwhile had its Documents served already.
                if !state.reopened { self.slot.set(responder) }
                return true
            }
            if !kept { presenter.close() }
        }
    }

    /// The share could not start serving (``start(description:factory:)`` failed): ``follow()``
    /// returns `error`.
    func fail(_ error: SandboxError) {
        ending.yield(.failed(error))
        ending.finish()
    }

    /// Unregisters the share; ``follow()`` returns.
    func close() {
        ending.finish()
        let presenter = state.withLock { state in
            state.closed = true
            defer { state.presenter = nil }  // it holds this coordinator through its handler
            return state.presenter
        }
        presenter?.close()
    }

    /// Waits until an operation ends the share, or until ``close()``.
    func follow() async -> Ending {
        for await ended in endings { return ended }
        return .closed
    }

    /// Handles `notice` on the presenter's thread; the presenter answers for the share when it
    /// returns (it let go, or it serves again).
    private func take(_ notice: ContainerPresenter.Notice, factory: ResponderFactory) {
        let writes = factory.writes
        switch notice.phase {
        case .will:
            guard notice.response == .relinquish else { return }  // told only: nothing to let go of
            writes.pause(for: notice.operation)
            let cut = writes.drain(until: .now + Self.drainLimit)
            if cut > 0 {
                logger.warning(
                    "\(cut) change(s) still running after \(Self.drainLimit) were cut for the \(notice.operation.rawValue) of \(app); their clients get 503."
                )
            }
        case .did:
            if notice.outcome == .completed, notice.operation == .uninstall {
                slot.clear()  // the folder is gone: nothing of it is served while the server stops
                logger.notice("\(app) was uninstalled; the share stops.")
                ending.yield(.uninstalled)
                return
            }
            if notice.outcome == .completed, notice.operation == .restore {
                do throws(SandboxError) {
                    try reopen(factory)
                } catch {
                    slot.clear()  // never the old, replaced folder
                    logger.error("\(app) was restored, and its new Documents cannot be shared: \(error)")
                    ending.yield(.failed(error))
                    return
                }
            }
            writes.resume()
        }
    }

    /// Serves the restored Documents: a new folder, which every descriptor of the old one no
    /// longer names. Changes are still refused meanwhile.
    private func reopen(_ factory: ResponderFactory) throws(SandboxError) {
        let responder = factory.responder(serving: try ShareServer.openDocuments(of: try home.container(for: app)))
        let previous = state.withLock { state in
            state.reopened = true
            defer { slot.set(responder) }
            return slot.value
        }
        previous?.page.feed.endListeners()
        logger.notice("\(app) was restored; the share serves its restored Documents.")
    }
}
