import Sandbox
import SandboxStore

/// The codes of the download session's own failures. A failure of the file system beneath keeps
/// the core's code (`no-space` is `no-space` at every layer); a task that ran too long in a process
/// that ended is the core's ``/SandboxCore/SandboxError/Code/interrupted``, a body past its
/// request's limit the store's `too-large`, and `sandboxd` out of reach the `Sandbox` module's
/// `daemon-unavailable`.
extension SandboxError.Code {
    /// The task was cancelled (`cancel()`, `cancel(byProducingResumeData:)`, or a signal).
    public static let cancelled = Self("cancelled")
    /// The URL is not an absolute `http` or `https` URL.
    public static let invalidURL = Self("invalid-url")
    /// The server answered with an error status (4xx, 5xx) or one a download cannot use; the
    /// body was not written to the file.
    public static let httpStatus = Self("http-status")
    /// The response breaks HTTP (a `Content-Range` that does not parse, a body longer than
    /// announced, a body shorter than `Content-Length`).
    public static let invalidResponse = Self("invalid-response")
    /// The connection failed or was reset, after the retries ran out.
    public static let network = Self("network")
    /// No byte arrived for longer than the stall timeout, after the retries ran out.
    public static let stalled = Self("stalled")
    /// The redirect limit was reached or a redirect cycle found.
    public static let tooManyRedirects = Self("too-many-redirects")
    /// The file's digest differs from the expected one; the file was deleted.
    public static let checksumMismatch = Self("checksum-mismatch")
    /// Resume data that does not decode, has an unknown version, or names no usable partial file.
    public static let invalidResumeData = Self("invalid-resume-data")
    /// Another process has a session with the same identifier open.
    public static let sessionInUse = Self("session-in-use")
    /// The session was invalidated (``DownloadSession/invalidateAndCancel()``): it makes no
    /// new tasks.
    public static let sessionInvalidated = Self("session-invalidated")

    // MARK: Background transfers (sandboxd)
    /// A background-transfer message broke the protocol (not JSON, an unknown type, a
    /// connection cut inside a frame).
    public static let protocolViolation = Self("protocol-violation")
    /// The app's library and `sandboxd` speak different protocol versions.
    public static let protocolVersion = Self("protocol-version")
}
