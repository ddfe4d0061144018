import Logging
import Sandbox
import SandboxStore
import Synchronization

/// A finished download waiting in the session's folder: the `location` of
/// `urlSession(_:downloadTask:didFinishDownloadingTo:)`.
///
/// Move it with ``move(to:)`` (or ``move(toPath:replacingExisting:)``) while handling the event. If it is still there
/// when the delegate method returns — or, for the event stream, when the last reference to this
/// object goes away — it is deleted, so finished downloads never pile up as temporary files.
public final class DownloadedFile: Sendable {
    /// Where the file is now, relative to the container's home.
    public let temporaryPath: ContainerPath
    /// The server's suggested name (sanitized), for ``move(to:)``.
    public let suggestedFilename: String
    /// The file's size in bytes.
    public let byteCount: Int64
    /// The digest checked during the download (lower-case hex), if one was asked for.
    public let digest: String?
    /// The container the file is in, whose policy every move asks.
    let container: Container
    var root: ConfinedRoot { container.root }
    /// The session's: ``move(to:)`` seals the file with its folder's protection class.
    let dataProtection: DataProtection?
    /// The session's, for a temporary file that could not be deleted.
    private let logger: Logger
    private let movedTo: Mutex<ContainerPath?>
    private let discarded = Mutex(false)

    init(
        container: Container, temporaryPath: ContainerPath, suggestedFilename: String, byteCount: Int64,
        digest: String?,
        movedTo: ContainerPath? = nil, dataProtection: DataProtection? = nil,
        logger: Logger = DownloadSession.disabledLogger
    ) {
        self.container = container
        self.dataProtection = dataProtection
        self.logger = logger
        self.temporaryPath = temporaryPath
        self.suggestedFilename = suggestedFilename
        self.byteCount = byteCount
        self.digest = digest
        self.movedTo = Mutex(movedTo)
    }

    /// Where the file was moved, if it was.
    public var movedPath: ContainerPath? { movedTo.withLock { $0 } }

    /// Moves the file into `destination`'s folder under its name (the suggested one by default),
    /// numbering it (`name (1).ext`) when the name is taken, where the container's policy allows it.
    ///
    /// - Returns: the file's new path.
    /// - Throws: ``/SandboxCore/SandboxError/Code/readOnly`` where the policy refuses the move; the core's code of a file failure (its ``/SandboxCore/SandboxError`` is the cause)
    ///   when it was already moved or discarded, or the move fails.
    @discardableResult
    public func move(to destination: DownloadDestination) throws(SandboxError) -> ContainerPath {
        let name = destination.filename.flatMap(SuggestedFilename.sanitize) ?? suggestedFilename
        return try claim { () throws(SandboxError) in
            try container.moveDownload(
                from: temporaryPath, into: destination.folder.path, name: name, dataProtection: dataProtection)
        }
    }

    /// Moves the file to `path` in the container (which must not exist unless `replacingExisting`),
    /// where the container's policy allows it (``/Sandbox/Container/checkPolicy(movingFrom:to:)``:
    /// a link the app planted never routes the file where the app may not create one).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/readOnly`` where the policy refuses the move; the
    ///   core's code of a file failure (its ``/SandboxCore/SandboxError`` is the cause) when it was
    ///   already moved or discarded, or the move fails.
    public func move(toPath path: ContainerPath, replacingExisting: Bool = false) throws(SandboxError) {
        _ = try claim { () throws(SandboxError) in
            do throws(SandboxError) {
                try container.checkPolicy(movingFrom: temporaryPath, to: path)
                try root.moveItem(from: temporaryPath, to: path, replacingExisting: replacingExisting)
            } catch {
                throw .fileSystem(error, doing: "move the download to '\(path)'")
            }
            return path
        }
    }

    private func claim(_ move: () throws(SandboxError) -> ContainerPath) throws(SandboxError) -> ContainerPath {
        let result: Result<ContainerPath, SandboxError> = movedTo.withLock { moved in
            if let moved {
                return .failure(
                    SandboxError(.notFound, "The download was already moved to '\(moved)'.", path: moved.description))
            }
            if discarded.withLock({ $0 }) {
                return .failure(
                    SandboxError(
                        .notFound, "The download at '\(temporaryPath)' was deleted: move it while handling the event.",
                        path: temporaryPath.description))
            }
            do throws(SandboxError) {
                let path = try move()
                moved = path
                return .success(path)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Deletes the file unless it was moved.
    func discardIfNotMoved() {
        movedTo.withLock { moved in
            guard moved == nil, !discarded.withLock({ $0 }) else { return }
            discarded.withLock { $0 = true }
            do throws(SandboxError) {
                try root.removeItem(at: temporaryPath)
            } catch {
                // Best effort: the session's next start sweeps leftovers.
                logger.handled(
                    SandboxError.fileSystem(error, doing: "delete the unmoved download '\(temporaryPath)'"),
                    "The session's next start deletes it.")
            }
        }
    }

    deinit { discardIfNotMoved() }
}
