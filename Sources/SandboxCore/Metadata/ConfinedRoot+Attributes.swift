import CSandboxShims
import Foundation
import Glibc
import SystemPackage

extension ConfinedRoot {
    static let statxMask = CSB_STATX_BASIC_STATS | CSB_STATX_BTIME

    /// The resource values of the item at `path`.
    ///
    /// - Parameters:
    ///   - path: the item to describe, relative to the root.
    ///   - followingSymlink: whether a symlink in the last component is described as itself
    ///     (`false`) or as its target, which must lie in the container (`true`, the default).
    /// - Returns: the values, or `nil` only when nothing exists at `path`.
    /// - Throws: ``SandboxError/Code/escapesContainer`` and the other resolution errors; a missing
    ///   directory in the middle of the path is also `nil`.
    public func attributes(
        at path: ContainerPath, followingSymlink: Bool = true
    ) throws(SandboxError) -> FileAttributes? {
        do throws(SandboxError) {
            if followingSymlink || path.isRoot {
                let fd = try open(path, flags: CSB_O_PATH)
                return try Self.statx(fd.rawValue, "", flags: CSB_AT_EMPTY_PATH, path: path.description)
            }
            let parent = try openParent(of: path)
            let name = parent.name.cString
            return try Self.statx(parent.rawValue, name, flags: CSB_AT_SYMLINK_NOFOLLOW, path: path.description)
        } catch  where error.code == .notFound {
            return nil
        }
    }

    /// Whether an item of any kind exists at `path` (following a final symlink).
    ///
    /// - Throws: resolution errors such as ``SandboxError/Code/escapesContainer``: an escape is an
    ///   error, never "does not exist".
    public func itemExists(at path: ContainerPath) throws(SandboxError) -> Bool {
        try attributes(at: path) != nil
    }

    /// Whether a regular file exists at `path`.
    public func fileExists(at path: ContainerPath) throws(SandboxError) -> Bool {
        try attributes(at: path)?.type == .regular
    }

    /// Whether a directory exists at `path`.
    public func directoryExists(at path: ContainerPath) throws(SandboxError) -> Bool {
        try attributes(at: path)?.type == .directory
    }

    /// The logical size of the file at `path`, or `nil` if it does not exist.
    public func fileSize(at path: ContainerPath) throws(SandboxError) -> Int64? {
        try attributes(at: path)?.size
    }

    /// Sets the modification and/or access date of the item at `path`; `nil` leaves a date as it is.
    public func setDates(modification: Date? = nil, access: Date? = nil, at path: ContainerPath) throws(SandboxError) {
        func timespec(_ date: Date?) -> Glibc.timespec {
            guard let date else { return Glibc.timespec(tv_sec: 0, tv_nsec: CSB_UTIME_OMIT) }
            let seconds = date.timeIntervalSince1970.rounded(.down)
            return Glibc.timespec(
                tv_sec: Int(seconds), tv_nsec: Int((date.timeIntervalSince1970 - seconds) * 1_000_000_000))
        }
        let fd = try open(path, flags: CSB_O_PATH)
        let times = [timespec(access), timespec(modification)]
        _ = try syscall("utimensat", path: path.description) {
            utimensat(AT_FDCWD, "/proc/self/fd/\(fd.rawValue)", times, 0)
        }
    }

    /// The attributes of `name` in the open directory `directory` (`flags`: `AT_SYMLINK_NOFOLLOW`
    /// to describe a symlink itself), one `statx(2)`; `path` names it in errors.
    package static func statx(
        _ directory: CInt, _ name: UnsafePointer<CChar>, flags: CInt, path: @autoclosure () -> String
    ) throws(SandboxError) -> FileAttributes {
        var raw = csb_statx_t()
        _ = try syscall("statx", path: path()) { csb_statx(directory, name, flags, statxMask, &raw) }
        return FileAttributes(raw)
    }
}
