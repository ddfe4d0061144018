/// How a lifecycle operation treats each kind of live user: one table, the README's.
///
/// | operation | share | daemon | watch | run | app |
/// |---|---|---|---|---|---|
/// | restore | relinquish | relinquish | relinquish | refuse | relinquish |
/// | update | notify | notify | notify | refuse | relinquish |
/// | uninstall | relinquish | relinquish | relinquish | refuse | relinquish |
/// | restart | notify | relinquish | notify | refuse | relinquish |
/// | purge | notify | notify | notify | notify | notify |
/// | lock | relinquish | notify | notify | notify | relinquish |
/// | backup | notify | notify | notify | notify | relinquish |
///
/// - *relinquish*: the user is asked to let go first (finish its writes, close its files, pause)
///   and the operation waits for its answer, bounded; then it is told the outcome and reopens
///   the container (or stops, after an uninstall).
/// - *notify*: the user is told before and after, without a wait (purge skips what presenters
///   declare held, see ``ContainerPresenter/hold(_:)``).
/// - A watcher holds nothing open that an operation must wait for, yet it is asked to relinquish
///   for a restore or an uninstall: it must learn of the operation *before* the container goes,
///   or it takes the removal it sees for the folder's own. It answers at once (from its
///   presenter's own thread, ``ContainerPresenter/init(home:app:kind:description:confirmsReacquisition:onNotice:)``);
///   other operations leave the container in place and only notify it.
/// - *refuse*: the operation does not start while such a user lives, and names it. A program
///   under `sandbox run` has its files open in the container and executes from the bundle; it is
///   not this library's to kill (iOS kills the app; here the owner stops it, then retries).
public enum CoordinationPolicy {
    /// What `kind` is asked for `operation`.
    public enum Response: String, Sendable, Codable {
        case notify, relinquish, refuse
    }

    /// The table's cell for `operation` and `kind`.
    public static func response(to operation: CoordinatedOperation, from kind: PresenterKind) -> Response {
        switch (operation, kind) {
        case (.purge, _): .notify
        case (.restore, .run), (.update, .run), (.uninstall, .run), (.restart, .run): .refuse
        case (.restore, .watch), (.uninstall, .watch): .relinquish
        case (_, .run), (_, .watch): .notify
        case (_, .app): .relinquish
        case (.restore, _), (.uninstall, _): .relinquish
        case (.restart, .daemon): .relinquish
        case (.lock, .share): .relinquish
        default: .notify
        }
    }
}
