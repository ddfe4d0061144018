import Glibc

/// The process's open descriptors against its limit (`RLIMIT_NOFILE`).
///
/// A server must stay below the limit, not only survive reaching it: on Linux, libdispatch's
/// thread-pool monitor opens `/proc/<tid>/stat` about once a second while work waits on a global
/// queue (every `Task.sleep` wakes through one), and it kills the process with `SIGILL` when that
/// `open` fails (`DISPATCH_CLIENT_CRASH`, "workq: registered worker exited prematurely"; measured
/// in `ConnectionExhaustionTests`: a share flooded to its limit died so, one run in three). Servers
/// therefore size what they accept to ``softLimit()`` less what they hold besides
/// (``openCount()`` when they start) and a reserve.
package enum ProcessDescriptors {
    /// The soft limit now in force; `nil` when it cannot be read. `RLIM_INFINITY` is `Int.max`.
    package static func softLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft limit to the hard one (the usual soft limit, 1,024, is what one client
    /// reaches with idle connections) and returns the soft limit now in force; `nil` when it
    /// cannot be read. A limit that cannot be raised is left as it is.
    @discardableResult
    package static func raiseSoftLimitToHard() -> Int? {
        var limit = rlimit()
        guard getrlimit(resource, &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(resource, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// How many descriptors the process holds, from `/proc/self/fd` (the one that reads it not
    /// counted); `nil` when procfs cannot be read — with no descriptor left, among other causes.
    package static func openCount() -> Int? {
        let directory = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { return nil }
        defer { close(directory) }
        let reader = DirectoryReader(bufferSize: 16 * 1024)
        var count = 0
        do {
            try reader.forEachEntry(of: directory, path: "/proc/self/fd") { _, _ in count += 1 }
        } catch {
            return nil  // procfs refused the listing: the count is unknown, which the caller handles
        }
        return count - 1
    }

    private static let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
}
