import Sandbox

/// The one error type of the download session.
///
/// Like ``/SandboxCore/SandboxError``, every failure carries a ``code`` to branch on, a ``message`` for a person
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
    /// The error underneath: the ``/SandboxCore/SandboxError`` of a file failure (whose code ``code`` keeps),
    /// the HTTP client's error for network failures.
    public var cause: (any Error & Sendable)?
    /// How to continue the download from the bytes already on disk; `nil` when it cannot continue.
    public var resumeData: ResumeData?
    /// Where the error was raised.
    public var location: SandboxError.SourceLocation

    /// An error of `code`, located at the caller.
    ///
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - message: a sentence for a person that names the URL or file and the remedy.
    ///   - url: the URL involved, if any.
    ///   - path: the file involved, relative to the container's home, if any.
    ///   - cause: the error underneath, if any.
    ///   - resumeData: how to continue the download, when it can continue.
    ///   - file: the raising file; the caller's by default.
    ///   - line: the raising line; the caller's by default.
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
    /// A failure's kind, spelled in stable kebab-case. A struct, so that codes can be added: switch
    /// with a default. A failure of the file system beneath keeps the core's code (``init(_:)``),
    /// so `no-space` is `no-space` at every layer; the download's own codes are listed below.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable spelling used in messages and JSON output.
        public let rawValue: String

        private init(rawValue: String) { self.rawValue = rawValue }

        /// The core's code, carried up unchanged.
        public init(_ code: SandboxError.Code) { self.rawValue = code.rawValue }

        /// The stable, kebab-case spelling used in messages and JSON output.
        public var description: String { rawValue }

        /// The task was cancelled (`cancel()`, `cancel(byProducingResumeData:)`, or a signal).
        public static let cancelled = Code(rawValue: "cancelled")
        /// The process that ran the task ended before it finished (reported by the next session
        /// with the same identifier, with resume data). Spelled as the core's `interrupted`.
        public static let interrupted = Code(.interrupted)
        /// The URL is not an absolute `http` or `https` URL.
        public static let invalidURL = Code(rawValue: "invalid-url")
        /// The server answered with an error status (4xx, 5xx) or one a download cannot use; the
        /// body was not written to the file.
        public static let httpStatus = Code(rawValue: "http-status")
        /// The response breaks HTTP (a `Content-Range` that does not parse, a body longer than
        /// announced, a body shorter than `Content-Length`).
        public static let invalidResponse = Code(rawValue: "invalid-response")
        /// The connection failed or was reset, after the retries ran out.
        public static let network = Code(rawValue: "network")
        /// No byte arrived for longer than the stall timeout, after the retries ran out.
        public static let stalled = Code(rawValue: "stalled")
        /// The redirect limit was reached or a redirect cycle found.
        public static let tooManyRedirects = Code(rawValue: "too-many-redirects")
        /// A data task's body is larger than its request allows (``DataRequest/maximumSize``); what
        /// arrived was dropped.
        public static let tooLarge = Code(rawValue: "too-large")
        /// The file's digest differs from the expected one; the file was deleted.
        public static let checksumMismatch = Code(rawValue: "checksum-mismatch")
        /// Resume data that does not decode, has an unknown version, or names no usable partial file.
        public static let invalidResumeData = Code(rawValue: "invalid-resume-data")
        /// Another process has a session with the same identifier open.
        public static let sessionInUse = Code(rawValue: "session-in-use")
        /// The session was invalidated (``DownloadSession/invalidateAndCancel()``): it makes no
        /// new tasks.
        public static let sessionInvalidated = Code(rawValue: "session-invalidated")
        /// An argument is out of range or malformed. Spelled as the core's `invalid-argument`.
        public static let invalidArgument = Code(.invalidArgument)

        // MARK: Background transfers (sandboxd)
        /// A background-transfer message broke the protocol (not JSON, an unknown type, a
        /// connection cut inside a frame).
        public static let protocolViolation = Code(rawValue: "protocol-violation")
        /// The app's library and `sandboxd` speak different protocol versions.
        public static let protocolVersion = Code(rawValue: "protocol-version")
        /// `sandboxd` could not be reached or started.
        public static let daemonUnavailable = Code(rawValue: "daemon-unavailable")
        /// A code as received from `sandboxd` (its stable spelling).
        package init(wire rawValue: String) { self.rawValue = rawValue }

        /// The core's `not-found`: a file or checkpoint the download needs is gone.
        public static let notFound = Code(.notFound)
        /// The core's `no-space`: the file system is full.
        public static let noSpace = Code(.noSpace)
        /// The core's `corrupt`: a checkpoint is damaged or names a file outside the session's folder.
        public static let corrupt = Code(.corrupt)
    }
}

extension TransferError {
    /// A failure of the file system beneath, with the core's code, path and error kept.
    static func fileSystem(
        _ error: SandboxError, doing action: String, file: String = #fileID, line: Int = #line
    ) -> TransferError {
        TransferError(
            Code(error.code), "Could not \(action): \(error.message)", path: error.path, cause: error, file: file,
            line: line)
    }
}
