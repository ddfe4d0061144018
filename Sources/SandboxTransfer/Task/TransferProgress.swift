/// A download's progress, as `urlSession(_:downloadTask:didWriteData:totalBytesWritten:totalBytesExpectedToWrite:)`
/// reports it, plus speed and time remaining. What is not known is `nil`, never a sentinel.
///
/// Totals count the resume offset: after resuming at 40 MiB of 100 MiB, `totalBytesWritten` starts at
/// 40 MiB and `totalBytesExpectedToWrite` is 100 MiB.
public struct TransferProgress: Sendable, Hashable, Codable {
    /// Bytes written since the previous report.
    public var bytesWritten: Int64
    /// Bytes in the file so far.
    public var totalBytesWritten: Int64
    /// The file's final size, or `nil` while the server has not said (a chunked body without
    /// `Content-Length`).
    public var totalBytesExpectedToWrite: Int64?
    /// The smoothed transfer rate in bytes per second, or `nil` before the first measurement.
    public var bytesPerSecond: Double?

    /// Progress as given; for tests and for delegates that forward it.
    public init(
        bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64?, bytesPerSecond: Double? = nil
    ) {
        self.bytesWritten = bytesWritten
        self.totalBytesWritten = totalBytesWritten
        self.totalBytesExpectedToWrite = totalBytesExpectedToWrite
        self.bytesPerSecond = bytesPerSecond
    }

    /// `totalBytesWritten / totalBytesExpectedToWrite` (1 for an empty file), or `nil` when the
    /// length is unknown.
    public var fractionCompleted: Double? {
        guard let total = totalBytesExpectedToWrite else { return nil }
        return total == 0 ? 1 : Double(totalBytesWritten) / Double(total)
    }

    /// Seconds left at the current rate, or `nil` when the length or the rate is unknown.
    public var secondsRemaining: Double? {
        guard let total = totalBytesExpectedToWrite, let rate = bytesPerSecond, rate > 0 else { return nil }
        return Double(max(0, total - totalBytesWritten)) / rate
    }
}
