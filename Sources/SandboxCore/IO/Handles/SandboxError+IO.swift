extension SandboxError {
    /// An operation on a handle, stream or channel that has been closed.
    ///
    /// The code is ``SandboxError/Code/invalidArgument``: the handle, like a closed descriptor
    /// (`EBADF`), is no longer a valid argument. Match on it with ``isClosedHandle``.
    static func closed(_ path: String, file: String = #fileID, line: Int = #line) -> SandboxError {
        .rule(.invalidArgument, "'\(path)'\(closedMarker)", path: path, file: file, line: line)
    }

    /// Whether this error reports use of a closed handle, stream or channel.
    public var isClosedHandle: Bool {
        code == .invalidArgument && message.hasSuffix(Self.closedMarker)
    }

    private static let closedMarker = " was closed; open it again to read or write."

    /// An operation that a close (``IOChannel/close(immediately:)``) or a cancelled task stopped.
    static func cancelled(_ path: String, _ why: String, file: String = #fileID, line: Int = #line) -> SandboxError {
        .rule(.interrupted, "The operation on '\(path)' was stopped: \(why).", path: path, file: file, line: line)
    }

    /// A negative offset or count.
    static func negative(_ what: String, _ value: Int64, path: String, file: String = #fileID, line: Int = #line) -> SandboxError {
        .rule(.invalidArgument, "The \(what) \(value) for '\(path)' is negative; offsets and counts start at 0.", path: path, file: file, line: line)
    }

    /// A read that starts beyond the end of the file.
    static func pastEnd(_ offset: Int64, size: Int64, path: String, file: String = #fileID, line: Int = #line) -> SandboxError {
        .rule(.invalidArgument, "Offset \(offset) is past the end of '\(path)', which is \(size) bytes long.", path: path, file: file, line: line)
    }
}
