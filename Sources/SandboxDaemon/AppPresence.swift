import Logging
import Sandbox
import SandboxCore
import SandboxTransfer
import Synchronization

/// The daemon registered as a live user (``/Sandbox/ContainerPresenter``, kind `daemon`) of one
/// app's containers: lifecycle operations on the app (uninstall, restore, restart) tell it first
/// and wait for it to let go, and purge leaves the folders it writes in alone.
///
/// Each notice is handled on the presenter's own thread, which answers for the daemon when the
/// handler returns: the handler runs the daemon's step (``Daemon/coordinate(_:of:)``) in a task on
/// the I/O engine's executor, never on Swift's cooperative pool, and waits for it at most
/// ``stepLimit``. A process whose pool is busy still lets go within an operation's timeout.
final class AppPresence: Sendable {
    /// The folders of the container the daemon writes in: its sessions' partial files and
    /// checkpoints, and the finished files it stages for the app. Purge never evicts them.
    static let heldFolders = [DownloadSession.folder, SessionHost.stagingFolder]

    /// How long the presenter's thread waits for the daemon's step: past an operation's usual
    /// wait (``/Sandbox/SandboxHome/defaultCoordinationTimeout``), the operation has given up.
    static let stepLimit = SandboxHome.defaultCoordinationTimeout + .seconds(5)

    let presenter: ContainerPresenter

    /// Registers the daemon as a user of `app`'s containers; each notice goes to `daemon`.
    ///
    /// - Throws: as ``/Sandbox/ContainerPresenter/init(home:app:kind:description:confirmsReacquisition:onNotice:)`` and
    ///   ``/Sandbox/ContainerPresenter/hold(_:)``.
    init(app: AppIdentifier, daemon: Daemon) throws(SandboxError) {
        let logger = daemon.logger
        let presenter = try ContainerPresenter(
            home: daemon.home, app: app, kind: .daemon, description: "sandboxd (background downloads)"
        ) { notice in
            let done = Mutex(false)
            Task(executorPreference: IOEngine.shared.taskExecutor) {
                await daemon.coordinate(notice, of: app.rawValue)
                done.withLock { $0 = true }
            }
            // Waited for on this thread, bounded: past the bound the operation has given up.
            if !BoundedPoll.until(.now + Self.stepLimit, { done.withLock { $0 } }) {
                logger.error(
                    "sandboxd did not finish its part in the \(notice.operation.rawValue) of \(app) within \(Self.stepLimit)."
                )
            }
        }
        do throws(SandboxError) {
            try presenter.hold(Self.heldFolders)
        } catch {
            presenter.close()
            throw error
        }
        self.presenter = presenter
    }

    /// Unregisters: operations on the app no longer tell or wait for the daemon.
    func close() {
        presenter.close()
    }
}
