import AsyncHTTPClient
import NIOCore
import NIOPosix

/// How one transfer attempt failed, and whether another attempt may continue it.
struct AttemptFailure: Error, Sendable {
    var error: SandboxError
    var retryable: Bool
    /// The server's `Retry-After`, if it sent one.
    var retryAfter: Duration?

    static func fatal(_ error: SandboxError) -> AttemptFailure {
        AttemptFailure(error: error, retryable: false)
    }

    /// Classifies an error of the HTTP client or the network: resets, refusals, timeouts and
    /// bodies cut short are retried; bad URLs, redirect loops and cancellation are not.
    static func classify(_ error: any Error, url: String) -> AttemptFailure {
        if let failure = error as? AttemptFailure { return failure }
        if let error = error as? SandboxError { return .fatal(error) }
        if error is CancellationError {
            return .fatal(SandboxError(.cancelled, "The download of \(url) was cancelled.", url: url))
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .readTimeout, .deadlineExceeded:
                return AttemptFailure(
                    error: SandboxError(
                        .stalled, "The download of \(url) stalled: no byte arrived within the stall timeout.", url: url,
                        underlying: .wrapping(client)),
                    retryable: true)
            case .redirectLimitReached, .redirectCycleDetected:
                return .fatal(
                    SandboxError(
                        .tooManyRedirects, "\(url) redirects too often or in a cycle; check the URL.", url: url,
                        underlying: .wrapping(client)))
            case .cancelled:
                return .fatal(
                    SandboxError(
                        .cancelled, "The download of \(url) was cancelled.", url: url, underlying: .wrapping(client)))
            case .invalidURL, .emptyHost, .emptyScheme, .unsupportedScheme("http"), .missingSocketPath:
                return .fatal(
                    SandboxError(
                        .invalidURL, "\(url) cannot be downloaded: \(client).", url: url, underlying: .wrapping(client))
                )
            default:
                break
            }
        }
        return AttemptFailure(
            error: SandboxError(
                .network, "The connection for \(url) failed; check the network and the server.", url: url,
                underlying: .wrapping(error)),
            retryable: true)
    }
}
