import SystemPackage

/// The system call that failed and the `errno` it set.
public struct SystemCallFailure: Hashable, Sendable, CustomStringConvertible {
    /// The C function's name, e.g. `"openat2"`.
    public var systemCall: String
    /// The error number.
    public var errno: Errno

    /// The failure of `systemCall` with `errno`.
    public init(systemCall: String, errno: Errno) {
        self.systemCall = systemCall
        self.errno = errno
    }

    /// `call: error`, e.g. `openat2: No such file or directory`.
    public var description: String { "\(systemCall): \(errno)" }
}
