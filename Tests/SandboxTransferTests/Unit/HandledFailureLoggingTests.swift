import Foundation
import Glibc
import Logging
import Sandbox
import Synchronization
import Testing

@testable import SandboxTransfer

/// What a session handles on its own, without failing a task, reaches the logger it was given.
@Suite struct HandledFailureLoggingTests {
    /// A recovered session that cannot measure an interrupted task's partial file (a symlink loop
    /// now stands under its name) still reports the task, and says why on its logger.
    @Test func recoveryLogsAPartialFileItCannotMeasure() async throws {
        try await Fixture.with { fixture in
            var partial = ""
            do {
                let session = try fixture.session()
                let task = try session.downloadTask(with: try #require(URL(string: "http://127.0.0.1:9/z.bin")))
                let record = try #require(session.store.record(task.taskIdentifier))
                partial = try session.partialPath(record.partialName).description
                let host = fixture.container.homeDirectory + "/" + partial
                #expect(symlink(record.partialName, host) == 0)  // resolving it loops: ELOOP
                try session.store.update(task.taskIdentifier) { _ in }  // checkpointed
            }  // the process "ends" with the task active
            let records = CollectedRecords()
            let session = try DownloadSession(
                identifier: "test", container: fixture.container, logger: records.logger(label: "test.transfer"))
            guard case .failed(let code, _, _) = session.store.records.first?.phase else {
                Issue.record("the interrupted task was not reported: \(session.store.records)")
                return
            }
            #expect(code == SandboxError.Code.interrupted.description)
            let warnings = records.all.filter { $0.level == .warning }
            #expect(warnings.count == 1, "\(records.all)")
            let warning = try #require(warnings.first)
            #expect(warning.message.contains(partial))
            #expect(warning.metadata["error.path"]?.description == partial)
            #expect(warning.errorCode != nil)
            #expect(warning.metadata["error.code"]?.description == warning.errorCode)
        }
    }

    /// Without a logger, the session keeps quiet: the default discards every record.
    @Test func theDefaultLoggerDiscards() {
        #expect(DownloadSession.disabledLogger.handler is SwiftLogNoOpLogHandler)
    }
}

/// A log handler that keeps every record, for tests.
final class CollectedRecords: Sendable {
    struct Record: Sendable, CustomStringConvertible {
        var level: Logger.Level
        var message: String
        var metadata: Logger.Metadata
        /// The code of the error passed with the record, when it is one of the package's.
        var errorCode: String?
        var description: String { "\(level): \(message) \(metadata)" }
    }

    private let records = Mutex<[Record]>([])

    var all: [Record] { records.withLock { $0 } }

    func logger(label: String) -> Logger {
        var logger = Logger(label: label) { _ in Handler(sink: self) }
        logger.logLevel = .trace
        return logger
    }

    fileprivate func append(_ record: Record) { records.withLock { $0.append(record) } }

    private struct Handler: LogHandler {
        let sink: CollectedRecords
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace

        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }

        func log(event: LogEvent) {
            let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
            let code = (event.error as? SandboxError)?.code.rawValue
            sink.append(
                Record(level: event.level, message: event.message.description, metadata: merged, errorCode: code))
        }
    }
}
