extension SandboxError {
    /// An operation on a handle, stream or channel that has been closed: ``SandboxError/Code/closed``.
    static func closed(_ path: String, file: String = #fileID, line: Int = #line) -> SandboxError {
        .rule(.closed, "'\(path)' was closed; open it again to read or write.", path: path, file: file, line: line)
    }

    /// Whether this error reports use of a closed handle, stream or channel.
    public var isClosedHandle: Bool { code == .closed }

    /// An operation that a close (``IOChannel/close(immediately:)``) or a cancelled task stopped.
    static func cancelled(_ path: String, _ why: String, file: String = #fileID, line: Int = #line) -> SandboxError {
        .rule(.interrupted, "The operation on '\(path)' was stopped: \(why).", path: path, file: file, line: line)
    }

    /// A negative offset or count.
    static func negative(
        _ what: String, _ value: Int64, path: String, file: String = #fileID, line: Int = #line
    ) -> SandboxError {
        .rule(
            .invalidArgument, "The \(what) \(value) for '\(path)' is negative; offsets and counts start at 0.",
            path: path, file: file, line: line)
    }

    /// A read that starts beyond the end of the file.
    static func pastEnd(
        _ offset: Int64, size: Int64, path: String, file: String = #fileID, line: Int = #line
    ) -> SandboxError {
        .rule(
            .invalidArgument, "Offset \(offset) is past the end of '\(path)', which is \(size) bytes long.", path: path,
            file: file, line: line)
    }
}
