import Sandbox

/// One step of a lifecycle operation that replaces or removes the data container a watcher
/// follows, as ``ContainerFollower`` hands it to the watcher.
enum ContainerStep: Sendable {
    /// A restore or uninstall is about to run: what the container reports from now on may be its
    /// removal, which is the operation's, not the folder's.
    case willChange
    /// The operation failed: the container stayed.
    case stayed
    /// A restore completed: watch the folder in this container, the new one.
    case replaced(Container)
    /// A restore completed, and the new container cannot be opened.
    case unreadable(SandboxError)
    /// An uninstall completed: the container is gone.
    case removed
}

/// The one way a watcher of the `SandboxWatch` module (``ContainerFolderMonitor``, a
/// ``FolderWatcher`` made with ``FolderWatcher/init(watching:of:configuration:description:logger:)``)
/// follows its app's data container through lifecycle operations: a
/// ``/Sandbox/ContainerPresenter`` of kind ``/Sandbox/PresenterKind/watch`` whose handler runs on
/// the presenter's own thread.
///
/// A restore or uninstall asks watchers to relinquish (``/Sandbox/CoordinationPolicy``) and waits
/// for the answer, which is written when the handler returns: the watcher has learnt of the
/// operation (``ContainerStep/willChange``) before the operation touches the container, so a
/// removal it then sees is the operation's. After a completed restore the handler opens the new
/// container and the watcher re-arms on it before returning: the restore returns (reacquisition
/// is confirmed) once the watcher watches the restored container.
enum ContainerFollower {
    /// Registers as a watcher of `container`'s app; `step` is called on the presenter's thread,
    /// in order, for each step of an operation that replaces or removes the container (others are
    /// ignored), and must have done what the step asks when it returns.
    ///
    /// - Throws: as ``/Sandbox/ContainerPresenter/init(home:app:kind:description:confirmsReacquisition:onNotice:)``.
    static func register(
        following container: Container, description: String,
        _ step: @escaping @Sendable (ContainerStep) -> Void
    ) throws(SandboxError) -> ContainerPresenter {
        let (home, app) = (container.home, container.identifier)
        return try ContainerPresenter(
            home: home, app: app, kind: .watch, description: description, confirmsReacquisition: true
        ) { notice in
            guard notice.operation.replacesContainer else { return }
            guard notice.phase == .did else { return step(.willChange) }
            guard notice.outcome == .completed else { return step(.stayed) }
            guard notice.operation == .restore else { return step(.removed) }
            do throws(SandboxError) {
                step(.replaced(try home.container(for: app)))
            } catch {
                step(.unreadable(error))
            }
        }
    }
}
