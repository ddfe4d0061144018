import Logging
import Sandbox
import Synchronization

/// The share as a live user of its app's container: a ``/Sandbox/ContainerPresenter`` of kind
/// ``/Sandbox/PresenterKind/share``, registered while the server runs, following the lifecycle
/// operations on the app as ``/Sandbox/CoordinationPolicy`` asks.
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

    private struct Serving: Sendable {
        let presenter: ContainerPresenter
        let factory: ResponderFactory
    }

    private let serving = Mutex<Serving?>(nil)
    private let failure = Mutex<SandboxError?>(nil)
    private let started: AsyncStream<Serving>
    private let start: AsyncStream<Serving>.Continuation

    /// How long the share lets changes in flight run once asked to let go: the operations' usual
    /// wait (``/Sandbox/SandboxHome/defaultCoordinationTimeout``) less a margin for the answer
    /// to reach them.
    static let drainLimit = SandboxHome.defaultCoordinationTimeout - .seconds(2)

    init(home: SandboxHome, app: AppIdentifier, slot: ResponderSlot, logger: Logger) {
        self.home = home
        self.app = app
        self.slot = slot
        self.logger = logger
        (started, start) = AsyncStream.makeStream(of: Serving.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// Registers the share as `description` ("sandbox share on 127.0.0.1:8080"), then opens
    /// Documents afresh — a restore that ended before the registration is served this way; one
    /// that ends after it is told — and serves it through `factory`.
    ///
    /// - Throws: the registration's file-system errors; the errors of
    ///   ``ShareServer/openDocuments(of:)``.
    func start(description: String, factory: ResponderFactory) async throws(SandboxError) {
        let (home, app) = (self.home, self.app)
        let (presenter, documents) = try await IOEngine.shared.withTaskExecutor {
            () throws(SandboxError) -> (ContainerPresenter, ConfinedRoot) in
            let presenter = try ContainerPresenter(
                home: home, app: app, kind: .share, description: description, confirmsReacquisition: true)
            do throws(SandboxError) {
                return (presenter, try ShareServer.openDocuments(of: try home.container(for: app)))
            } catch {
                presenter.close()
                throw error
            }
        }
        slot.set(factory.responder(serving: documents))
        let value = Serving(presenter: presenter, factory: factory)
        serving.withLock { $0 = value }
        start.yield(value)
        start.finish()
    }

    /// The share could not start serving (``start(description:factory:)`` failed): ``follow()``
    /// returns `error`.
    func fail(_ error: SandboxError) {
        failure.withLock { $0 = error }
        start.finish()
    }

    /// Unregisters the share; ``follow()`` returns.
    func close() {
        start.finish()
        serving.withLock { $0 }?.presenter.close()
    }

    /// Follows the operations on the app from ``start(description:factory:)`` until ``close()``,
    /// or until one ends the share.
    func follow() async -> Ending {
        var iterator = started.makeAsyncIterator()
        guard let serving = await iterator.next() else {
            return failure.withLock { $0 }.map(Ending.failed) ?? .closed
        }
        let writes = serving.factory.writes
        for await notice in serving.presenter.notices {
            switch notice.phase {
            case .will:
                guard notice.response == .relinquish else { continue }  // told only: nothing to let go of
                writes.pause(for: notice.operation)
                await letGo(notice, serving: serving)
            case .did:
                if notice.outcome == .completed, notice.operation == .uninstall {
                    slot.clear()  // the folder is gone: nothing of it is served while the server stops
                    logger.notice("\(app) was uninstalled; the share stops.")
                    return .uninstalled
                }
                if notice.outcome == .completed, notice.operation == .restore {
                    do throws(SandboxError) {
                        try await reopen(serving)
                    } catch {
                        slot.clear()  // never the old, replaced folder
                        logger.error("\(app) was restored, and its new Documents cannot be shared: \(error)")
                        return .failed(error)
                    }
                }
                writes.resume()
                confirm(notice, serving: serving)
            }
        }
        return .closed
    }

    /// Waits for the changes in flight (at most ``drainLimit``, cutting the rest), then answers.
    private func letGo(_ notice: ContainerPresenter.Notice, serving: Serving) async {
        let cut = await serving.factory.writes.drain(until: .now + Self.drainLimit)
        if cut > 0 {
            logger.warning(
                "\(cut) change(s) still running after \(Self.drainLimit) were cut for the \(notice.operation.rawValue) of \(app); their clients get 503."
            )
        }
        do throws(SandboxError) {
            try serving.presenter.relinquished(notice)
        } catch {
            // Unanswered, the operation fails (naming the share) and says so: changes resume then.
            logger.error("Could not answer the \(notice.operation.rawValue) of \(app): \(error)")
        }
    }

    /// Tells an operation the share let go for that it serves again (the restored Documents
    /// after a restore), so the operation returns only then: the next request meets the new
    /// folder and takes changes.
    private func confirm(_ notice: ContainerPresenter.Notice, serving: Serving) {
        guard notice.response == .relinquish else { return }
        do throws(SandboxError) {
            try serving.presenter.reacquired(notice)
        } catch {
            // The operation waits its bounded time for the answer, then returns all the same.
            logger.error("Could not confirm the end of the \(notice.operation.rawValue) of \(app): \(error)")
        }
    }

    /// Serves the restored Documents: a new folder, which every descriptor of the old one no
    /// longer names. Changes are still refused meanwhile.
    private func reopen(_ serving: Serving) async throws(SandboxError) {
        let (home, app) = (self.home, self.app)
        let documents = try await IOEngine.shared.withTaskExecutor { () throws(SandboxError) -> ConfinedRoot in
            try ShareServer.openDocuments(of: try home.container(for: app))
        }
        let previous = slot.value
        slot.set(serving.factory.responder(serving: documents))
        previous?.page.feed.endListeners()
        logger.notice("\(app) was restored; the share serves its restored Documents.")
    }
}
