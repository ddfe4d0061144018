import AsyncHTTPClient
import NIOCore
import NIOPosix

/// How one transfer attempt failed, and whether another attempt may continue it.
struct AttemptFailure: Error, Sendable {
    var error: TransferError
    var retryable: Bool
    /// The server's `Retry-After`, if it sent one.
    var retryAfter: Duration?

    static func fatal(_ error: TransferError) -> AttemptFailure {
        AttemptFailure(error: error, retryable: false)
    }

    /// Classifies an error of the HTTP client or the network: resets, refusals, timeouts and
    /// bodies cut short are retried; bad URLs, redirect loops and cancellation are not.
    static func classify(_ error: any Error, url: String) -> AttemptFailure {
        if let failure = error as? AttemptFailure { return failure }
        if let error = error as? TransferError { return .fatal(error) }
        if error is CancellationError {
            return .fatal(TransferError(.cancelled, "The download of \(url) was cancelled.", url: url))
        }
        if let client = error as? HTTPClientError {
            switch client {
            case .readTimeout, .deadlineExceeded:
                return AttemptFailure(
                    error: TransferError(
                        .stalled, "The download of \(url) stalled: no byte arrived within the stall timeout.", url: url,
                        cause: client),
                    retryable: true)
            case .redirectLimitReached, .redirectCycleDetected:
                return .fatal(
                    TransferError(
                        .tooManyRedirects, "\(url) redirects too often or in a cycle; check the URL.", url: url,
                        cause: client))
            case .cancelled:
                return .fatal(
                    TransferError(.cancelled, "The download of \(url) was cancelled.", url: url, cause: client))
            case .invalidURL, .emptyHost, .emptyScheme, .unsupportedScheme("http"), .missingSocketPath:
                return .fatal(
                    TransferError(.invalidURL, "\(url) cannot be downloaded: \(client).", url: url, cause: client))
            default:
                break
            }
        }
        return AttemptFailure(
            error: TransferError(
                .network, "The connection for \(url) failed; check the network and the server.", url: url, cause: error),
            retryable: true)
    }
}
