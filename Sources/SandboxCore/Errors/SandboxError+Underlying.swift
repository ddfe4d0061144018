extension SandboxError {
    /// What lay beneath a ``SandboxError`` when it was not (only) a system call.
    public indirect enum Underlying: Sendable, CustomStringConvertible {
        /// Another failure of the libraries, e.g. the file system's beneath a store's; it keeps its
        /// own code, path and system call.
        case error(SandboxError)
        /// Words from below that are not an error value: a decoder's coding path, SQLite's message.
        case detail(String)
        /// An error of another library, e.g. the HTTP client's or NIO's.
        case foreign(any Error & Sendable)

        /// `error` as what lay beneath: ``error(_:)`` when it is a ``SandboxError``, else
        /// ``foreign(_:)``; `nil` for no error.
        public static func wrapping(_ error: (any Error & Sendable)?) -> Underlying? {
            guard let error else { return nil }
            if let error = error as? SandboxError { return .error(error) }
            return .foreign(error)
        }

        /// The ``SandboxError`` beneath, when there is one.
        public var sandboxError: SandboxError? {
            if case .error(let error) = self { return error }
            return nil
        }

        /// The text worth showing after a message: the system call beneath another failure (its own
        /// message was already folded into the outer one), the detail, or the foreign error.
        var detail: String? {
            switch self {
            case .error(let error): error.cause.map(String.init(describing:)) ?? error.underlying?.detail
            case .detail(let text): text
            case .foreign(let error): String(describing: error)
            }
        }

        /// The text beneath: the system call, the detail, or the foreign error.
        public var description: String { detail ?? "file system" }
    }
}
