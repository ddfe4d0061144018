import Glibc
import SandboxCore
import Synchronization
import SystemPackage

/// What makes a confined program a live user of its app's containers (``PresenterKind/run``), so
/// that restore, update, uninstall and restart refuse while it runs, naming it
/// (``CoordinationPolicy``). Two registrations, each alive as long as what holds it:
///
/// - the launcher's, a ``ContainerPresenter`` this process holds from before the spawn until the
///   program has been reaped;
/// - the program's own: a registration locked through a **read-only** descriptor that the program
///   inherits without close-on-exec (``heldDescriptor``, as 4),
///   and that this process closes once the program runs. The program is in a new session and
///   outlives a launcher killed with SIGKILL; the kernel releases the lock only when the program,
///   and every process it started that kept the descriptor, has ended.
///
/// The program cannot use its descriptor to rewrite the registration (it is read-only, and
/// reopening it through `/proc/self/fd` for writing is outside what Landlock grants); it can let
/// go of the lock (`flock(LOCK_UN)`, `close`), which ends only its own registration: while the
/// launcher lives, the launcher's stands.
final class RunRegistration: Sendable {
    private let launcher: ContainerPresenter
    private let folder: CoordinationFolder
    private let file: ContainerPath
    /// This process's copy of the program's lock, until the program runs.
    private let hold: Mutex<FileLock?>
    private let description: String

    /// Registers the launcher and, not yet started, the program.
    ///
    /// - Throws: file-system errors of the device's coordination folder;
    ///   ``/SandboxCore/SandboxError/Code/tooManyOpenFiles`` when no thread can be started.
    init(container: Container, command: [String]) throws(SandboxError) {
        let home = container.home
        let named = Self.shown(command)
        launcher = try ContainerPresenter(
            home: home, app: container.identifier, kind: .run, description: "sandbox run \(named)")
        description = "the program of sandbox run \(named)"
        folder = CoordinationFolder(root: home.root, app: container.identifier)
        let token = "\(getpid())-program-\(RandomToken.make())"
        // Written whole under a hidden name, locked, then published (as ContainerPresenter does):
        // an operation never sees the registration without its lock.
        let staged = folder.presenters.appendingName(".new-\(token)")
        try home.root.writeContents(
            try folder.encode(PresenterRecord(kind: .run, pid: getpid(), description: description)), to: staged)
        let lock = try FileLock(readingAt: staged, in: home.root)
        hold = Mutex(lock)
        guard try lock.tryLock(.exclusive) else {
            throw SandboxError(
                .alreadyExists, "A new registration is locked already; run the program again.",
                path: staged.description)
        }
        file = folder.presenters.appendingName(token)
        try home.root.moveItem(from: staged, to: file)
    }

    /// The read-only, locked descriptor the program inherits (-1 once it runs).
    var heldDescriptor: CInt { hold.withLock { $0?.descriptor.rawValue ?? -1 } }

    /// The program runs as `pid`: its registration names it, and this process closes its copy of
    /// the lock — closes, never unlocks: that would release the program's too.
    func started(pid: pid_t) {
        hold.withLock { $0 = nil }
        do throws(SandboxError) {
            let bytes = try folder.encode(PresenterRecord(kind: .run, pid: pid, description: description))
            let fd = try folder.root.openFileDescriptor(at: file)
            defer { close(fd.rawValue) }
            try bytes.withBytes { (buffer) throws(SandboxError) in
                try FullWrite.write(buffer, to: fd.rawValue, atOffset: 0, path: file.description)
            }
            _ = ftruncate(fd.rawValue, off_t(bytes.count))
        } catch {
            // The registration still refuses, naming the launcher's pid instead of the program's.
        }
    }

    /// The program was reaped (or never started): the launcher's registration goes, and the
    /// program's unless a process the program started still holds it.
    func ended() {
        hold.withLock { lock in
            lock?.unlock()  // never started: nothing else holds it
            lock = nil
        }
        do throws(SandboxError) {
            if try FileLock(readingAt: file, in: folder.root).tryLock(.exclusive) {
                try folder.root.removeItem(at: file)
            }
        } catch {
            // Gone already, or unreadable: an unlocked registration is a dead one to every
            // operation, which removes it.
        }
        launcher.close()
    }

    /// The command as registrations name it: its words, at most 200 characters.
    private static func shown(_ command: [String]) -> String {
        let joined = command.joined(separator: " ")
        return joined.count > 200 ? String(joined.prefix(199)) + "…" : joined
    }
}
