import Foundation

extension DownloadSession {
    /// The identifier of a session of its own for `url`: `prefix` and the absolute URL's 64-bit
    /// FNV-1a hash in hexadecimal (`cli-00af…`). One session per URL lets downloads of different
    /// URLs run at once in different processes (a session is held by one process at a time), and
    /// lets a process that starts the same download again find its partial file
    /// (``downloadTask(continuingOrStarting:)``).
    public static func identifier(for url: URL, prefix: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in url.absoluteString.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        return prefix + Hex.string(of: hash, minimumDigits: 16)
    }

    /// A suspended task for `request` that continues this session's newest paused download of the
    /// same URL (interrupted, failed or cancelled with its bytes kept), or starts a new one when
    /// there is none. What `request` says now wins: its destination, its digest when it gives one,
    /// its headers when it gives any.
    ///
    /// - Throws: as ``downloadTask(with:)-(DownloadRequest)`` and
    ///   ``downloadTask(withResumeData:destination:)``.
    public func downloadTask(continuingOrStarting request: DownloadRequest) throws(SandboxError) -> DownloadTask {
        guard var paused = pendingResumeData().last(where: { $0.originalURL == request.url.absoluteString }) else {
            return try downloadTask(with: request)
        }
        if let digest = request.expectedDigest { paused.expectedDigest = digest }
        if !request.headers.isEmpty { paused.headers = request.headers }
        return try downloadTask(withResumeData: paused, destination: request.destination)
    }
}
