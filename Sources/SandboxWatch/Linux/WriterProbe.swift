import CSandboxShims
import Glibc
import Logging
import SystemPackage

/// Tells whether any process has a file open for writing, with a read lease (`fcntl(F_SETLEASE,
/// F_RDLCK)`), which the kernel refuses with `EAGAIN` while the file has writers (fcntl(2)).
///
/// The lease is dropped again at once. A process that opens the file for writing in that instant
/// waits for the release (microseconds), or gets `EWOULDBLOCK` if it opens with `O_NONBLOCK`. The
/// break notification is set to `SIGURG`, which is ignored by default, rather than the default
/// `SIGIO`, which would end the process. Where a lease cannot be taken (not the file's owner
/// without `CAP_LEASE`, `fs.leases-enable=0`, network file systems), the answer is "no writers"
/// and the quiet period alone decides. Only regular files are opened (with `O_NONBLOCK`, so a FIFO
/// swapped in cannot hang it); anything else has no writers to wait for.
enum WriterProbe {
    // From <fcntl.h> (Linux): not exported by the Glibc module without _GNU_SOURCE.
    private static let setSignal: CInt = 10  // F_SETSIG
    private static let setLease: CInt = 1024  // F_SETLEASE

    /// Probes the file at `path` beneath `root` (its parent is resolved by the core, the file itself
    /// is opened with `O_NOFOLLOW`). A parent that cannot be opened for another reason than the
    /// file being gone counts as "no writers" (the quiet period alone decides) and goes to `logger`.
    static func probe(_ path: ContainerPath, in root: ConfinedRoot, logger: Logger) -> MonitorMachine.ProbeResult {
        do throws(SandboxError) {
            let parent = try root.openParent(of: path)
            return parent.name.cString.withUnsafeBufferPointer { name in
                name.baseAddress.map { probe($0, in: parent.rawValue) } ?? .gone
            }
        } catch {
            if MonitorMachine.isGone(error) { return .gone }
            logger.warning(
                "Could not check '\(path)' for writers: \(error.message) It counts as finished once quiet.",
                error: error, metadata: ["error.code": "\(error.code)"])
            return .noWriters
        }
    }

    private static func probe(_ name: UnsafePointer<CChar>, in parent: CInt) -> MonitorMachine.ProbeResult {
        var info = stat()
        guard fstatat(parent, name, &info, CSB_AT_SYMLINK_NOFOLLOW) == 0 else {
            return errno == ENOENT ? .gone : .noWriters
        }
        guard info.st_mode & S_IFMT == S_IFREG else { return .noWriters }
        let opened = retryingEINTR {
            openat(parent, name, O_RDONLY | O_NONBLOCK | O_NOCTTY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
        }
        guard case .success(let fd) = opened else {
            return opened == .failure(.noSuchFileOrDirectory) ? .gone : .noWriters
        }
        let file = OwnedDescriptor(taking: fd)
        _ = fcntl(file.rawValue, setSignal, SIGURG)
        guard fcntl(file.rawValue, setLease, CInt(F_RDLCK)) == 0 else {
            return errno == EAGAIN ? .openForWriting : .noWriters
        }
        _ = fcntl(file.rawValue, setLease, CInt(F_UNLCK))
        return .noWriters
    }
}
