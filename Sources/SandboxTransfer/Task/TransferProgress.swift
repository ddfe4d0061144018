/// A download's progress, as `urlSession(_:downloadTask:didWriteData:totalBytesWritten:totalBytesExpectedToWrite:)`
/// reports it, plus speed and time remaining.
///
/// Totals count the resume offset: after resuming at 40 MiB of 100 MiB, `totalBytesWritten` starts at
/// 40 MiB and `totalBytesExpectedToWrite` is 100 MiB.
public struct TransferProgress: Sendable, Hashable, Codable {
    /// `totalBytesExpectedToWrite` when the length is unknown (`NSURLSessionTransferSizeUnknown`).
    public static let sizeUnknown: Int64 = -1

    /// Bytes written since the previous report.
    public var bytesWritten: Int64
    /// Bytes in the file so far.
    public var totalBytesWritten: Int64
    /// The file's final size, or ``sizeUnknown``.
    public var totalBytesExpectedToWrite: Int64
    /// The smoothed transfer rate, in bytes per second (0 before the first measurement).
    public var bytesPerSecond: Double

    public init(bytesWritten: Int64, totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64, bytesPerSecond: Double = 0) {
        self.bytesWritten = bytesWritten
        self.totalBytesWritten = totalBytesWritten
        self.totalBytesExpectedToWrite = totalBytesExpectedToWrite
        self.bytesPerSecond = bytesPerSecond
    }

    /// `totalBytesWritten / totalBytesExpectedToWrite`, or `nil` when the length is unknown.
    public var fractionCompleted: Double? {
        guard totalBytesExpectedToWrite > 0 else { return totalBytesExpectedToWrite == 0 ? 1 : nil }
        return Double(totalBytesWritten) / Double(totalBytesExpectedToWrite)
    }

    /// Seconds left at the current rate, or `nil` when the length or the rate is unknown.
    public var secondsRemaining: Double? {
        guard totalBytesExpectedToWrite >= 0, bytesPerSecond > 0 else { return nil }
        return Double(max(0, totalBytesExpectedToWrite - totalBytesWritten)) / bytesPerSecond
    }
}
