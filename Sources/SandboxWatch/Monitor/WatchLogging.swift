import Logging

extension FolderMonitor {
    /// The default logger of monitors, watchers and inboxes: it discards every record. swift-log's
    /// own default (when the program never called `LoggingSystem.bootstrap`) writes to standard
    /// error, which a library must not do unasked; pass a logger to see what they handle on their own.
    public static var disabledLogger: Logger { .discarding }
}
