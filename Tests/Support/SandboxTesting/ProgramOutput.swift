/// How a process ended.
public struct ProgramExit: Equatable, Sendable, CustomStringConvertible {
    /// The exit status, when it exited.
    public var status: Int32?
    /// The signal that ended it, when one did.
    public var signal: Int32?
    /// Killed by the runner because it ran past its deadline: a hang.
    public var timedOut = false

    /// An end with this status or signal (one of them is `nil`), hung or not.
    public init(status: Int32?, signal: Int32?, timedOut: Bool = false) {
        self.status = status
        self.signal = signal
        self.timedOut = timedOut
    }

    /// An exit with `status`.
    public static func exited(_ status: Int32) -> ProgramExit { ProgramExit(status: status, signal: nil) }

    /// For failure messages: "exit 1", "killed by signal 9", or that it hung.
    public var description: String {
        if timedOut { return "hung: killed after the deadline" }
        return signal.map { "killed by signal \($0)" } ?? "exit \(status ?? -1)"
    }
}

/// What a finished process left: how it ended and what it printed.
public struct ProgramOutput: Sendable {
    /// How it ended.
    public var exit: ProgramExit
    /// What it wrote to standard output, decoded as UTF-8.
    public var stdout: String
    /// What it wrote to standard error, decoded as UTF-8.
    public var stderr: String

    /// The status as a shell reports it: the exit status, or 128 plus the signal that ended it.
    public var status: Int32 { exit.status ?? 128 + (exit.signal ?? 0) }
}
