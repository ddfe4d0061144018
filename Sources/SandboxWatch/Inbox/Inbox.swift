import Logging

/// A container's `Documents/Inbox`: where other apps deliver documents ("Open In…"), and where the
/// app reads them, takes them in, and empties the folder.
///
/// The sender side is ``deliver(hostFile:)`` (what `sandbox open-in` runs). The app side is
/// ``processPendingItems(_:)`` (once, e.g. at launch) and ``processItems(isolation:_:)`` (at launch,
/// then whenever new items arrive, using a ``FolderMonitor``). The app does not write into its
/// Inbox: ``writeItem(named:contents:)`` and ``checkAppMayWrite(to:)`` refuse with
/// ``/SandboxCore/SandboxError/Code/readOnly``.
///
/// ## Exactly once, across crashes
/// An item is *claimed* before it is handed to the app: renamed (atomically) into the hidden
/// folder `Documents/Inbox/.processing`. Only the processor whose rename succeeds hands it out, so
/// two processors never get the same item. After the handler returns, its ``InboxItem/Disposition``
/// is applied: ``InboxItem/Disposition/move(to:)`` renames the item to its final place (atomically:
/// the item is then handled, and only then), ``InboxItem/Disposition/delete`` removes it.
///
/// A processor that dies holding claimed items leaves them in `.processing`; the next pass hands
/// those out first, so nothing is lost. An item whose disposition was applied is never handed out
/// again. What cannot be made atomic is a handler's own side effect followed by the disposition:
/// a handler that copies an item elsewhere and then asks for ``InboxItem/Disposition/delete`` may
/// see it again after a crash in between; it should be idempotent, keyed by
/// ``InboxItem/identifier``, or, better, let ``InboxItem/Disposition/move(to:)`` do the work.
/// A handler that throws leaves its item claimed; it is offered again at the next launch.
///
/// Names beginning with `.` are skipped: they are senders' temporary files (and the processing
/// folder). A file that some process still has open for writing is skipped until it is closed.
public struct Inbox: Sendable {
    /// `Documents/Inbox`.
    public static let path = ContainerPath(constant: "Documents/Inbox")
    /// The hidden folder inside the Inbox where claimed items wait for their disposition.
    public static let processingFolderName = ".processing"

    /// The container whose `Documents/Inbox` this is.
    public let container: Container
    /// Where the Inbox reports what it handles on its own (an item it could not check for writers).
    public let logger: Logger

    /// The Inbox of `container`. Nothing is read or created until an item is delivered or processed.
    ///
    /// - Parameters:
    ///   - container: the container whose `Documents/Inbox` this is.
    ///   - logger: where the Inbox reports what it handles on its own; by default
    ///     ``FolderMonitor/disabledLogger``, which discards everything.
    public init(container: Container, logger: Logger = FolderMonitor.disabledLogger) {
        self.container = container
        self.logger = logger
    }

    var root: ConfinedRoot { container.root }

    var processingPath: ContainerPath { ContainerPath(constant: "Documents/Inbox/.processing") }

    /// Refuses an app-side write: always throws. The Inbox is the senders'; the app reads, moves out
    /// and deletes its items.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/readOnly``, always.
    public func writeItem(named name: String, contents: some Collection<UInt8>) throws(SandboxError) {
        try Self.checkAppMayWrite(to: Self.path.appending(name))
    }

    /// Throws when the container's policy (``/Sandbox/ContainerPolicy/app``) refuses the app
    /// creating an item at `path`, judged by its names: the Inbox and all in it, and
    /// `Library/Preferences`. A disposition moving an item out is judged, as well, where its links
    /// lead (``/Sandbox/Container/checkPolicy(allowing:at:)``).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/readOnly`` with a message that says what to do instead.
    public static func checkAppMayWrite(to path: ContainerPath) throws(SandboxError) {
        try ContainerPolicy.app.check(.create, at: Container.folded(path), requested: path)
    }

    /// The items waiting in the Inbox (names beginning with `.` excepted), sorted.
    ///
    /// - Throws: the errors of
    ///   ``/SandboxCore/ConfinedRoot/contentsOfDirectory(at:recursive:prefetchingAttributes:stoppingAtPathLimit:)``
    ///   other than ``/SandboxCore/SandboxError/Code/notFound`` (a missing Inbox is an empty one).
    public func pendingItems() throws(SandboxError) -> [ContainerPath] {
        try entries(of: Self.path).map(\.path)
    }

    /// The visible entries of a folder, sorted; none when it does not exist.
    func entries(of folder: ContainerPath) throws(SandboxError) -> [DirectoryEntry] {
        do throws(SandboxError) {
            return try root.contentsOfDirectory(at: folder).filter { !$0.name.hasPrefix(".") }.sorted {
                $0.name < $1.name
            }
        } catch  where error.code == .notFound {
            return []
        }
    }
}
