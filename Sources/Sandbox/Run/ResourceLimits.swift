import CSandboxShims
import Glibc

/// The resource limits a confined app runs under (setrlimit(2), set in the child before `execve`).
///
/// - `RLIMIT_NOFILE`: 1,024 open files (soft), at most 4,096 (hard), never above the launcher's hard limit.
/// - `RLIMIT_FSIZE`: no file larger than the free space (`f_bavail`) of the data container's file
///   system when the app starts; writing past it fails with `EFBIG` (or `SIGXFSZ`, whose default
///   action ends the program).
/// - `RLIMIT_CORE`: 0, no core dumps (a dump would carry the app's memory out of the container).
///
/// They hold for root too: `CAP_SYS_RESOURCE` is dropped (``ConfinedLaunch``).
public struct ResourceLimits: Sendable, Hashable {
    /// Open files: the soft limit.
    public var openFiles: UInt64
    /// Open files: the hard limit, which an unprivileged app cannot raise.
    public var openFilesHard: UInt64
    /// The largest file the app may write, in bytes.
    public var fileSize: UInt64
    /// Core dump size: 0.
    public var coreSize: UInt64 = 0

    /// The limits for an app whose container's file system has `availableBytes` free.
    public init(availableBytes: Int64) {
        var current = rlimit()
        let launcherHard =
            getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &current) == 0 ? UInt64(current.rlim_max) : 1024
        let hard = min(launcherHard, 4096)
        openFiles = min(1024, hard)
        openFilesHard = hard
        fileSize = UInt64(max(availableBytes, 0))
    }

    /// The limits as `setrlimit` takes them.
    var entries: [csb_rlimit_t] {
        [
            csb_rlimit_t(resource: Int32(RLIMIT_NOFILE.rawValue), soft: openFiles, hard: openFilesHard),
            csb_rlimit_t(resource: Int32(RLIMIT_FSIZE.rawValue), soft: fileSize, hard: fileSize),
            csb_rlimit_t(resource: Int32(RLIMIT_CORE.rawValue), soft: coreSize, hard: coreSize),
        ]
    }
}
