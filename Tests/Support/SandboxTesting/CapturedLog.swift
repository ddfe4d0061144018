import Logging
import Synchronization

/// A swift-log handler that keeps every record, for tests that check what a library logs: pass
/// ``logger(label:level:)`` where a logger is taken, then read ``records``.
public final class CapturedLog: Sendable {
    /// One record as logged, with the logger's metadata and the event's merged.
    public struct Record: Sendable, CustomStringConvertible {
        /// The level it was logged at.
        public var level: Logger.Level
        /// The message, as text.
        public var message: String
        /// The logger's metadata with the record's own over it.
        public var metadata: Logger.Metadata
        /// What ``CapturedLog/init(errorCode:)``'s function made of the error passed with the
        /// record (the package's error code, say), when one was.
        public var errorCode: String?

        /// `level: message metadata`, for a failed expectation's message.
        public var description: String { "\(level): \(message) \(metadata)" }
    }

    private let kept = Mutex<[Record]>([])
    private let errorCode: @Sendable (any Error) -> String?

    /// A log that keeps records; `errorCode` names the error a record carries (`nil` by default).
    public init(errorCode: @escaping @Sendable (any Error) -> String? = { _ in nil }) {
        self.errorCode = errorCode
    }

    /// Every record so far, in order.
    public var records: [Record] { kept.withLock { $0 } }

    /// The messages so far, in order.
    public var messages: [String] { records.map(\.message) }

    /// A logger writing to this log, at `level` and above.
    public func logger(label: String = "test", level: Logger.Level = .trace) -> Logger {
        var logger = Logger(label: label) { _ in Handler(log: self) }
        logger.logLevel = level
        return logger
    }

    fileprivate func append(_ event: LogEvent, metadata: Logger.Metadata) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let record = Record(
            level: event.level, message: event.message.description, metadata: merged,
            errorCode: event.error.flatMap(errorCode))
        kept.withLock { $0.append(record) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) { log.append(event, metadata: metadata) }
    }
}
