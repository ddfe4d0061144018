import CSandboxShims
import Glibc
import SandboxCore

/// Flushes one file system — the one a directory is on — with `syncfs(2)`, instead of `sync(2)`,
/// which flushes every file system of the machine (another disk's, a network mount's) and waits
/// on all of them.
enum FileSystemSync {
    /// Makes everything written to the file system of `hostPath` durable.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/io`` when the flush fails (a device error), and
    ///   the errors of opening the directory.
    static func synchronize(directoryAt hostPath: String) throws(SandboxError) {
        let fd = open(hostPath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else {
            throw SandboxError(
                .io, "Cannot open '\(hostPath)' to flush its file system: \(String(cString: strerror(errno))).",
                path: hostPath)
        }
        defer { close(fd) }
        guard csb_syncfs(fd) == 0 else {
            throw SandboxError(
                .io,
                "Flushing the file system of '\(hostPath)' failed: \(String(cString: strerror(errno))). Check the device; the data written may not be durable.",
                path: hostPath)
        }
    }
}
