/// How a confined app ended.
public enum AppExit: Sendable, Hashable, CustomStringConvertible {
    /// It exited with this status.
    case exited(Int32)
    /// A signal ended it.
    case signaled(Int32)

    /// The status as a shell reports it: the exit status, or 128 plus the signal's number
    /// (SIGTERM: 143), so that `sandbox run` can pass it on as its own.
    public var shellStatus: Int32 {
        switch self {
        case .exited(let status): status
        case .signaled(let signal): 128 + signal
        }
    }

    /// From a `waitpid` status.
    init(waitStatus status: Int32) {
        let signal = status & 0x7F
        self = signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
    }

    /// For messages: "exit 3", or "killed by signal 9".
    public var description: String {
        switch self {
        case .exited(let status): "exit \(status)"
        case .signaled(let signal): "killed by signal \(signal)"
        }
    }
}
