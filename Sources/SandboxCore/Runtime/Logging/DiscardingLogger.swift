import Logging

extension Logger {
    /// The default logger of the package's libraries (monitors, watchers, inboxes, download
    /// sessions): it discards every record. swift-log's own default (when the program never called
    /// `LoggingSystem.bootstrap`) writes to standard error, which a library must not do unasked;
    /// the caller passes a logger to see what a library handles on its own.
    package static let discarding = Logger(label: "com.sandbox", factory: { _ in SwiftLogNoOpLogHandler() })
}
