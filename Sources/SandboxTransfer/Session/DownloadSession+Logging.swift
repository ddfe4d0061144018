import Logging
import Sandbox

extension DownloadSession {
    /// The default ``logger``: it discards every record. swift-log's own default (when the program
    /// never called `LoggingSystem.bootstrap`) writes to standard error, which a library must not
    /// do unasked; pass a logger to see what the session handles on its own.
    public static var disabledLogger: Logger { .discarding }
}

extension Logger {
    /// Records a failure that is handled here instead of thrown: its message and what follows
    /// from it, the error itself, and its code and path as metadata (`error.code`, `error.path`).
    func handled(
        _ error: SandboxError, _ consequence: String, level: Logger.Level = .warning,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        var metadata: Logger.Metadata = ["error.code": "\(error.code.rawValue)"]
        if let path = error.path { metadata["error.path"] = "\(path)" }
        log(
            level: level, "\(error.message) \(consequence)", error: error, metadata: metadata, file: file,
            function: function, line: line)
    }
}
