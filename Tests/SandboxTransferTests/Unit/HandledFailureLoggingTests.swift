import Foundation
import Glibc
import Logging
import Sandbox
import SandboxTesting
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
            let records = CapturedLog { ($0 as? SandboxError)?.code.rawValue }
            let session = try DownloadSession(
                identifier: "test", container: fixture.container, logger: records.logger(label: "test.transfer"))
            guard case .failed(let code, _, _) = session.store.records.first?.phase else {
                Issue.record("the interrupted task was not reported: \(session.store.records)")
                return
            }
            #expect(code == SandboxError.Code.interrupted.description)
            let warnings = records.records.filter { $0.level == .warning }
            #expect(warnings.count == 1, "\(records.records)")
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
