import CSandboxShims
import Glibc

/// Flushes one file system — the one a directory is on — with `syncfs(2)`, instead of `sync(2)`,
/// which flushes every file system of the machine (another disk's, a network mount's) and waits
/// on all of them.
package enum FileSystemSync {
    /// Makes everything written to the file system `fd` is on durable. `fd` must not be an
    /// `O_PATH` descriptor (`syncfs` refuses those with `EBADF`).
    ///
    /// - Throws: ``SandboxError/Code/io`` when the flush fails (a device error).
    package static func synchronize(fileSystemOf fd: CInt, path: @autoclosure () -> String) throws(SandboxError) {
        guard csb_syncfs(fd) == 0 else {
            let reason = String(cString: strerror(errno))
            throw SandboxError(
                .io,
                "Flushing the file system of '\(path())' failed: \(reason). Check the device; the data written may not be durable.",
                path: path())
        }
    }
}

extension ConfinedRoot {
    /// Makes everything written to the root's file system durable (`syncfs(2)`). The directory is
    /// opened through the root's descriptor, never again by its host path: a root whose directory
    /// was moved or replaced on the host flushes the file system of the directory it holds.
    ///
    /// - Throws: ``SandboxError/Code/io`` when the flush fails (a device error);
    ///   ``SandboxError/Code/permissionDenied`` when the directory cannot be opened for reading.
    package func synchronizeFileSystem() throws(SandboxError) {
        let fd = try syscall("openat", path: hostPath) {
            openat(descriptor, ".", O_RDONLY | CSB_O_DIRECTORY | CSB_O_CLOEXEC)
        }
        defer { close(fd) }
        try FileSystemSync.synchronize(fileSystemOf: fd, path: hostPath)
    }
}
