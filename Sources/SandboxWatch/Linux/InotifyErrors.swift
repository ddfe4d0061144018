import Glibc
import SystemPackage

/// The errors of the inotify calls, whose `errno` values mean something of their own: `EMFILE`
/// from `inotify_init1` is the per-user instance limit, `ENOSPC` from `inotify_add_watch` the
/// per-user watch limit (inotify(7)). Every other `errno` is mapped by the core, like any call's.
extension SandboxError {
    /// `inotify_init1` failed: `EMFILE` there means the per-user instance limit (or the process's
    /// descriptor limit), `ENFILE` the system's.
    static func inotifyInstance(errno code: Int32, file: String = #fileID, line: Int = #line) -> SandboxError {
        guard code == EMFILE || code == ENFILE else {
            return .systemCall("inotify_init1", errno: Errno(rawValue: code), path: "inotify", file: file, line: line)
        }
        let limit = InotifyLimits.read("max_user_instances").map { " (now \($0))" } ?? ""
        return SandboxError(
            .tooManyOpenFiles,
            "No inotify instance is left: the per-user limit /proc/sys/fs/inotify/max_user_instances\(limit) is reached (or the process's descriptor limit, `ulimit -n`). Stop other folder monitors or watchers of this user, or raise it: sysctl fs.inotify.max_user_instances=512.",
            cause: SystemCallFailure(systemCall: "inotify_init1", errno: Errno(rawValue: code)), file: file, line: line
        )
    }

    /// `inotify_add_watch` failed; `ENOSPC` there means the per-user watch limit.
    static func inotifyWatch(errno code: Int32, path: String, file: String = #fileID, line: Int = #line) -> SandboxError
    {
        guard code == ENOSPC else {
            return .systemCall("inotify_add_watch", errno: Errno(rawValue: code), path: path, file: file, line: line)
        }
        let limit = InotifyLimits.read("max_user_watches").map { " (now \($0))" } ?? ""
        return SandboxError(
            .noSpace,
            "Cannot watch '\(path)': the per-user limit /proc/sys/fs/inotify/max_user_watches\(limit) is reached (one watch per folder, shared by every program of this user). Watch fewer folders (non-recursively), or raise it: sysctl fs.inotify.max_user_watches=524288.",
            path: path, cause: SystemCallFailure(systemCall: "inotify_add_watch", errno: Errno(rawValue: code)),
            file: file, line: line
        )
    }
}

/// The `fs.inotify` sysctls, for messages and tests.
package enum InotifyLimits {
    /// The value of `/proc/sys/fs/inotify/<name>`, or `nil` when it cannot be read (messages then
    /// leave the number out).
    package static func read(_ name: String) -> Int? {
        let fd = open("/proc/sys/fs/inotify/" + name, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let file = OwnedDescriptor(taking: fd)
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { bytes in
            retryingEINTR { Glibc.read(file.rawValue, bytes.baseAddress, bytes.count) }
        }
        guard case .success(let used) = count, used > 0 else { return nil }
        return Int(String(decoding: buffer[0..<used], as: UTF8.self).filter(\.isNumber))
    }
}
