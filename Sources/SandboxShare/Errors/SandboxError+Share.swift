import Sandbox

/// The WebDAV condition a share's failure names.
enum ShareConditionKey: SandboxErrorKey { typealias Value = String }
/// How long a refused client should wait.
enum RetryAfterKey: SandboxErrorKey { typealias Value = Duration }

extension SandboxError {
    /// The RFC 4918 precondition or postcondition element (in the `DAV:` namespace) a share's
    /// response body names, e.g. `lock-token-submitted` or `propfind-finite-depth`.
    public var condition: String? {
        get { self[ShareConditionKey.self] }
        set { self[ShareConditionKey.self] = newValue }
    }

    /// How long the client should wait before it retries (`Retry-After`), for
    /// ``SandboxCore/SandboxError/Code/tooManyRequests`` and ``SandboxCore/SandboxError/Code/unavailable``.
    public var retryAfter: Duration? {
        get { self[RetryAfterKey.self] }
        set { self[RetryAfterKey.self] = newValue }
    }

    /// A share's failure of `code` that names a WebDAV `condition`, located at the caller.
    ///
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - message: a sentence for a person that names the path and the remedy; sent as the
    ///     response body, so it never holds a secret.
    ///   - path: the shared path involved, if any.
    ///   - underlying: what lay beneath, if anything.
    ///   - condition: the `DAV:` precondition element the response names.
    ///   - file: the raising file; the caller's by default.
    ///   - line: the raising line; the caller's by default.
    package init(
        _ code: Code,
        _ message: String,
        path: String? = nil,
        underlying: Underlying? = nil,
        condition: String?,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.init(code, message, path: path, underlying: underlying, file: file, line: line)
        self.condition = condition
    }
}
