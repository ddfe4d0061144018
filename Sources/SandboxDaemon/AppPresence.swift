import Sandbox
import SandboxTransfer

/// The daemon registered as a live user (``/Sandbox/ContainerPresenter``, kind `daemon`) of one
/// app's containers: lifecycle operations on the app (uninstall, restore, restart) tell it first
/// and wait for it to let go, and purge leaves the folders it writes in alone.
final class AppPresence: Sendable {
    /// The folders of the container the daemon writes in: its sessions' partial files and
    /// checkpoints, and the finished files it stages for the app. Purge never evicts them.
    static let heldFolders = [DownloadSession.folder, SessionHost.stagingFolder]

    let presenter: ContainerPresenter
    private let listener: Task<Void, Never>

    /// Registers the daemon as a user of `app`'s containers; each notice goes to `daemon`.
    ///
    /// - Throws: as ``/Sandbox/ContainerPresenter/init(home:app:kind:description:confirmsReacquisition:onNotice:)`` and
    ///   ``/Sandbox/ContainerPresenter/hold(_:)``.
    init(app: AppIdentifier, daemon: Daemon) throws(SandboxError) {
        let presenter = try ContainerPresenter(
            home: daemon.home, app: app, kind: .daemon, description: "sandboxd (background downloads)")
        try presenter.hold(Self.heldFolders)
        self.presenter = presenter
        listener = Task {
            for await notice in presenter.notices { await daemon.coordinate(notice, of: app.rawValue) }
        }
    }

    /// Unregisters: operations on the app no longer tell or wait for the daemon.
    func close() {
        presenter.close()
        listener.cancel()
    }
}
