import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Removes the temporary files that atomic writes killed by a crash or `SIGKILL` left in
    /// `directory`, and returns how many it removed.
    ///
    /// Replacing a file atomically puts the new file under a temporary name
    /// (`.<name>.sandbox-<random>`) for a moment, and on file systems without `O_TMPFILE` writes the
    /// whole file under it; a process killed meanwhile leaves that name behind, while the target
    /// keeps its old contents. A root opened with ``openSubroot(at:stagingWritesIn:)`` keeps these
    /// names in its staging directory (a container's `tmp/`, emptied at restart); other roots keep
    /// them beside the file written. Run this when an app starts, as a database replays its journal.
    ///
    /// A temporary is removed only when no live writer holds it: writers lock their temporaries
    /// (`F_OFD_SETLK`) until they publish them, and the kernel drops the lock of a dead process.
    ///
    /// - Parameters:
    ///   - directory: the directory whose leftover temporaries are removed (its subdirectories are
    ///     not visited); the root by default. A root with a staging directory keeps them there.
    ///   - age: only names whose status changed at least this long ago are removed, which also
    ///     covers file systems without such locks.
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/notADirectory``, resolution
    ///   errors such as ``SandboxError/Code/escapesContainer``, and `unlinkat` errors.
    @discardableResult
    public func removeInterruptedWrites(
        in directory: ContainerPath = .root, olderThan age: Duration = .seconds(60)
    ) throws(SandboxError) -> Int {
        let fd = try open(directory, flags: O_RDONLY | CSB_O_DIRECTORY)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        // A negative age (every file is older) saturates rather than traps.
        let (difference, overflow) = Int64(now.tv_sec).subtractingReportingOverflow(age.clampedSeconds)
        let cutoff = overflow ? Int64.max : difference
        var names: [FileName] = []
        try DirectoryReader().forEachEntry(of: fd.rawValue, path: directory.description) { raw, _ in
            let name = FileName(listed: raw)
            if TemporaryName.matches(name.bytes) { names.append(name) }
        }
        var removed = 0
        for name in names {
            var info = stat()
            guard fstatat(fd.rawValue, name.cString, &info, CSB_AT_SYMLINK_NOFOLLOW) == 0,
                info.st_mode & S_IFMT == S_IFREG,
                Int64(info.st_ctim.tv_sec) <= cutoff
            else { continue }
            let opened = openat(
                fd.rawValue, name.cString, O_RDONLY | O_NONBLOCK | O_NOCTTY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
            // Kept open until the name is gone: the read lock taken by isHeld keeps writers out.
            // Unreadable (mode 000, not root): the age alone decides, as where there are no locks.
            defer { if opened >= 0 { _ = Glibc.close(opened) } }
            if opened >= 0, TemporaryName.isHeld(opened) { continue }
            if unlinkat(fd.rawValue, name.cString, 0) == 0 {
                removed += 1
            } else if errno != ENOENT {
                throw .systemCall(
                    "unlinkat", errno: Errno(rawValue: errno), path: directory.appending(name).description)
            }
        }
        return removed
    }

    /// Whether `name` has the form of a temporary name of an atomic write:
    /// `.<name>.sandbox-<lowercase base-36>`.
    public static func isInterruptedWriteName(_ name: String) -> Bool {
        TemporaryName.matches(name.utf8)
    }
}
