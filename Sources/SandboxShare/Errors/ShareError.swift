import Sandbox

/// The one error type of the sharing server.
///
/// Like ``/SandboxCore/SandboxError``, every failure carries a ``code`` to branch on, a ``message``
/// for a person (naming the path and the remedy), the ``cause`` underneath when there is one, and
/// the source location that raised it. Each code also has the HTTP status it answers with
/// (``Code/status``), and a WebDAV precondition (``condition``) when RFC 4918 names one, so a
/// handler throws and the server writes the response in one place.
public struct ShareError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a value to match on. New codes may be added, so switch with a default.
    public var code: Code
    /// A sentence for a person: what failed, on which path, and the remedy. Sent as the response
    /// body, so it never holds a secret.
    public var message: String
    /// The shared path involved (as the client wrote it, decoded), if any.
    public var path: String?
    /// The error underneath, e.g. the ``/SandboxCore/SandboxError`` of a file-system failure.
    public var cause: (any Error & Sendable)?
    /// The RFC 4918 precondition or postcondition element (in the `DAV:` namespace) the response
    /// body names, e.g. `lock-token-submitted` or `propfind-finite-depth`.
    public var condition: String?
    /// Where the error was raised.
    public var location: SandboxError.SourceLocation
    /// How long the client should wait before it retries (`Retry-After`), for
    /// ``Code/tooManyRequests``.
    public var retryAfter: Duration?

    /// An error of `code`, located at the caller.
    ///
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - message: a sentence for a person that names the path and the remedy.
    ///   - path: the shared path involved, if any.
    ///   - cause: the error underneath, if any.
    ///   - condition: the `DAV:` precondition element the response names, if any.
    ///   - file: the raising file; the caller's by default.
    ///   - line: the raising line; the caller's by default.
    public init(
        _ code: Code,
        _ message: String,
        path: String? = nil,
        cause: (any Error & Sendable)? = nil,
        condition: String? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
        self.condition = condition
        self.location = SandboxError.SourceLocation(file: file, line: line)
    }

    /// The message, the cause and the code, e.g. `… (openat2: …) [not-found]`.
    public var description: String {
        var text = message
        if let cause { text += " (\(cause))" }
        return text + " [\(code)]"
    }
}

extension ShareError: SandboxFailure {
    /// The code's stable spelling, e.g. `locked` or the core's `no-space`.
    public var codeName: String { code.description }
    /// The core's error when the file system caused this failure (the ``cause``, when it is one).
    public var fileSystemError: SandboxError? { cause as? SandboxError }
}
