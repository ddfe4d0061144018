import Glibc
import SystemPackage

extension SandboxError {
    /// A failed system call of the monitor, mapped like the core maps its own.
    static func watch(_ call: String, errno code: Int32, path: String, file: String = #fileID, line: Int = #line) -> SandboxError {
        let cause = SystemCallFailure(systemCall: call, errno: Errno(rawValue: code))
        let quoted = "'\(path)'"
        let (kind, message): (Code, String) =
            switch code {
            case ENOENT: (.notFound, "No folder at \(quoted) to watch. Check the path with `sandbox ls`.")
            case ENOTDIR, ELOOP: (.notADirectory, "\(quoted) is not a folder (symbolic links are not followed when watching).")
            case EACCES, EPERM: (.permissionDenied, "Permission denied for \(quoted). Check the folder's permissions and owner.")
            case EMFILE, ENFILE: (.tooManyOpenFiles, "Out of file descriptors while watching \(quoted). Close files or raise the limit (`ulimit -n`).")
            case ENOMEM: (.noSpace, "The kernel is out of memory for inotify while watching \(quoted).")
            default: (.unknown, "\(call) failed while watching \(quoted).")
            }
        return SandboxError(kind, message, path: path, cause: cause, file: file, line: line)
    }

    /// `inotify_init1` failed: `EMFILE` there means the per-user instance limit (or the process's
    /// descriptor limit), `ENFILE` the system's.
    static func inotifyInstance(errno code: Int32, file: String = #fileID, line: Int = #line) -> SandboxError {
        let cause = SystemCallFailure(systemCall: "inotify_init1", errno: Errno(rawValue: code))
        guard code == EMFILE || code == ENFILE else {
            return SandboxError(.unknown, "The kernel refused a new inotify instance.", cause: cause, file: file, line: line)
        }
        let limit = InotifyLimits.read("max_user_instances").map { " (now \($0))" } ?? ""
        return SandboxError(
            .tooManyOpenFiles,
            "No inotify instance is left: the per-user limit /proc/sys/fs/inotify/max_user_instances\(limit) is reached (or the process's descriptor limit, `ulimit -n`). Stop other folder monitors or watchers of this user, or raise it: sysctl fs.inotify.max_user_instances=512.",
            cause: cause, file: file, line: line
        )
    }

    /// `inotify_add_watch` failed; `ENOSPC` there means the per-user watch limit.
    static func inotifyWatch(errno code: Int32, path: String, file: String = #fileID, line: Int = #line) -> SandboxError {
        guard code == ENOSPC else { return .watch("inotify_add_watch", errno: code, path: path, file: file, line: line) }
        let limit = InotifyLimits.read("max_user_watches").map { " (now \($0))" } ?? ""
        return SandboxError(
            .noSpace,
            "Cannot watch '\(path)': the per-user limit /proc/sys/fs/inotify/max_user_watches\(limit) is reached (one watch per folder, shared by every program of this user). Watch fewer folders (non-recursively), or raise it: sysctl fs.inotify.max_user_watches=524288.",
            path: path, cause: SystemCallFailure(systemCall: "inotify_add_watch", errno: Errno(rawValue: code)), file: file, line: line
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
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return Int(String(decoding: buffer[0..<count], as: UTF8.self).filter(\.isNumber))
    }
}
