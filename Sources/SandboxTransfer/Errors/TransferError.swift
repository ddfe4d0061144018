import Sandbox

/// The one error type of the download session.
///
/// Like ``SandboxError``, every failure carries a ``code`` to branch on, a ``message`` for a person
/// (naming the URL or the path, and the remedy), the ``cause`` underneath when there is one, and the
/// source location that raised it. A failed or cancelled download also carries its
/// ``resumeData`` when it can continue — the `NSURLSessionDownloadTaskResumeData` of iOS.
public struct TransferError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a value to match on. New codes may be added, so switch with a default.
    public var code: Code
    /// A sentence for a person: what failed, on which URL or path, and the remedy.
    public var message: String
    /// The URL involved, if any.
    public var url: String?
    /// The container-relative path involved, if any.
    public var path: String?
    /// The error underneath: a ``SandboxError`` for file failures, the HTTP client's error for
    /// network failures.
    public var cause: (any Error & Sendable)?
    /// How to continue the download from the bytes already on disk; `nil` when it cannot continue.
    public var resumeData: ResumeData?
    /// Where the error was raised.
    public var location: SandboxError.SourceLocation

    public init(
        _ code: Code,
        _ message: String,
        url: String? = nil,
        path: String? = nil,
        cause: (any Error & Sendable)? = nil,
        resumeData: ResumeData? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.url = url
        self.path = path
        self.cause = cause
        self.resumeData = resumeData
        self.location = SandboxError.SourceLocation(file: file, line: line)
    }

    /// The message, the cause and the code, e.g. `… (connection reset) [network]`.
    public var description: String {
        var text = message
        if let cause { text += " (\(cause))" }
        return text + " [\(code)]"
    }

    /// The same error with `resumeData` attached.
    func with(resumeData: ResumeData?) -> TransferError {
        var copy = self
        copy.resumeData = resumeData
        return copy
    }
}

extension TransferError {
    /// A failure's kind. A struct over a private enum so that codes can be added.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: String, Sendable {
            case cancelled
            case interrupted
            case invalidURL = "invalid-url"
            case httpStatus = "http-status"
            case invalidResponse = "invalid-response"
            case network
            case stalled
            case tooManyRedirects = "too-many-redirects"
            case checksumMismatch = "checksum-mismatch"
            case invalidResumeData = "invalid-resume-data"
            case file
            case sessionInUse = "session-in-use"
            case invalidArgument = "invalid-argument"
        }

        fileprivate let kind: Kind
        fileprivate init(_ kind: Kind) { self.kind = kind }

        /// The stable, kebab-case spelling used in messages and JSON output.
        public var description: String { kind.rawValue }

        /// The task was cancelled (`cancel()`, `cancel(byProducingResumeData:)`, or a signal).
        public static let cancelled = Code(.cancelled)
        /// The process that ran the task ended before it finished (reported by the next session
        /// with the same identifier, with resume data).
        public static let interrupted = Code(.interrupted)
        /// The URL is not an absolute `http` or `https` URL.
        public static let invalidURL = Code(.invalidURL)
        /// The server answered with an error status (4xx, 5xx) or one a download cannot use; the
        /// body was not written to the file.
        public static let httpStatus = Code(.httpStatus)
        /// The response breaks HTTP (a `Content-Range` that does not parse, a body longer than
        /// announced, a body shorter than `Content-Length`).
        public static let invalidResponse = Code(.invalidResponse)
        /// The connection failed or was reset, after the retries ran out.
        public static let network = Code(.network)
        /// No byte arrived for longer than the stall timeout, after the retries ran out.
        public static let stalled = Code(.stalled)
        /// The redirect limit was reached or a redirect cycle found.
        public static let tooManyRedirects = Code(.tooManyRedirects)
        /// The file's digest differs from the expected one; the file was deleted.
        public static let checksumMismatch = Code(.checksumMismatch)
        /// Resume data that does not decode, has an unknown version, or names no usable partial file.
        public static let invalidResumeData = Code(.invalidResumeData)
        /// Writing, moving or checkpointing a file in the container failed; ``cause`` is the
        /// ``SandboxError``.
        public static let file = Code(.file)
        /// Another process has a session with the same identifier open.
        public static let sessionInUse = Code(.sessionInUse)
        /// An argument is out of range or malformed.
        public static let invalidArgument = Code(.invalidArgument)
    }
}

extension TransferError {
    /// Wraps a file failure in the container.
    static func file(_ error: SandboxError, doing action: String, file: String = #fileID, line: Int = #line) -> TransferError {
        TransferError(.file, "Could not \(action): \(error.message)", path: error.path, cause: error, file: file, line: line)
    }
}
