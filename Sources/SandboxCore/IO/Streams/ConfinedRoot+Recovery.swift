import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Removes the hidden files that atomic writes interrupted by a crash or `SIGKILL` can leave in
    /// `directory`, and returns how many it removed.
    ///
    /// Replacing a file atomically links the finished file under a hidden name
    /// (`.<name>.sandbox-<random>`) and renames it over the target; a process killed between those
    /// two calls (a few microseconds) leaves the hidden name behind. It holds complete contents,
    /// never a partial write, and the target still has the old contents. Run this when an app
    /// starts, as a database replays its journal.
    ///
    /// - Parameter age: only names whose status changed at least this long ago are removed, so that
    ///   writes in progress in other processes are left alone.
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/notADirectory``, resolution
    ///   errors such as ``SandboxError/Code/escapesContainer``, and `unlinkat` errors.
    @discardableResult
    public func removeInterruptedWrites(in directory: ContainerPath = .root, olderThan age: Duration = .seconds(60)) throws(SandboxError) -> Int {
        let fd = try open(directory, flags: O_RDONLY | CSB_O_DIRECTORY)
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let cutoff = Int64(now.tv_sec) - age.components.seconds
        var names: [String] = []
        try DirectoryReader().forEachEntry(of: fd.rawValue, path: directory.description) { raw, _ in
            let name = String(cString: raw)
            if Self.isInterruptedWriteName(name) { names.append(name) }
        }
        var removed = 0
        for name in names {
            var info = stat()
            guard fstatat(fd.rawValue, name, &info, CSB_AT_SYMLINK_NOFOLLOW) == 0,
                info.st_mode & S_IFMT == S_IFREG,
                Int64(info.st_ctim.tv_sec) <= cutoff
            else { continue }
            if unlinkat(fd.rawValue, name, 0) == 0 {
                removed += 1
            } else if errno != ENOENT {
                throw .systemCall("unlinkat", errno: Errno(rawValue: errno), path: directory.appendingTrusted(name).description)
            }
        }
        return removed
    }

    /// Whether `name` has the form of a temporary name of an atomic write:
    /// `.<name>.sandbox-<lowercase base-36>`.
    public static func isInterruptedWriteName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        let marker = Array(".sandbox-".utf8)
        guard bytes.first == UInt8(ascii: "."), bytes.count > marker.count + 2 else { return false }
        // The last ".sandbox-" that follows a non-empty name.
        for start in stride(from: bytes.count - marker.count - 1, through: 2, by: -1)
        where bytes[start..<(start + marker.count)].elementsEqual(marker) {
            return bytes[(start + marker.count)...].allSatisfy { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            }
        }
        return false
    }
}
