import Foundation
import Sandbox
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Synchronization
import Testing

/// A container in a fresh temporary home, removed afterwards, with helpers to download into it.
struct Fixture {
    let scratch: String
    let container: Container
    var root: ConfinedRoot { container.root }

    static let app = "com.example.downloads"

    /// Retries quickly. The stall timeout is long enough that a busy machine does not fake a stall;
    /// tests of stalls set a short one.
    static let fast = DownloadSession.Configuration(
        retryPolicy: RetryPolicy(maximumAttempts: 8, initialDelay: .milliseconds(5), maximumDelay: .milliseconds(50)),
        stallTimeout: .seconds(10), progressInterval: .milliseconds(20))

    /// `fast` with a one-second stall timeout, for tests of stalled servers.
    static var stallingAfterASecond: DownloadSession.Configuration {
        var configuration = fast
        configuration.stallTimeout = .seconds(1)
        return configuration
    }

    static let noRetries = DownloadSession.Configuration(
        retryPolicy: .never, stallTimeout: .seconds(10), progressInterval: .milliseconds(20))

    static func with<T>(_ body: (Fixture) async throws -> T) async throws -> T {
        try await ScratchDirectory.with(prefix: "sandbox-transfer") { scratch in
            let home = try SandboxHome(location: scratch.appending("home"))
            let container = try home.createContainer(for: AppIdentifier(app))
            return try await body(Fixture(scratch: scratch.path, container: container))
        }
    }

    func session(
        _ identifier: String = "test", _ configuration: DownloadSession.Configuration = Fixture.fast
    ) throws -> DownloadSession {
        try DownloadSession(identifier: identifier, container: container, configuration: configuration)
    }

    /// Downloads `url` into Caches and returns the outcome.
    func download(
        _ url: String, session: DownloadSession, digest: ExpectedDigest? = nil,
        destination: DownloadDestination = .caches
    ) async throws -> Result<DownloadOutcome, SandboxError> {
        let request = DownloadRequest(
            url: try #require(URL(string: url)), expectedDigest: digest, destination: destination)
        let task = try session.downloadTask(with: request)
        task.resume()
        return await task.result()
    }

    func contents(_ path: ContainerPath?) throws -> [UInt8] {
        try root.readContents(of: try #require(path), maximumSize: 1 << 30)
    }

    /// The files in the session's folder other than its lock (the checkpoints are in a folder): partial and
    /// temporary files.
    func leftovers(_ identifier: String = "test") throws -> [String] {
        let folder = try DownloadSession.folder.appending(identifier)
        return try root.fileNames(at: folder).filter { $0 != ".lock" }
    }

    /// The sizes of the partial files in the session's folder.
    func partialSizes(_ identifier: String = "test") throws -> [Int64] {
        let folder = try DownloadSession.folder.appending(identifier)
        return try leftovers(identifier).compactMap { name in try root.fileSize(at: folder.appending(name)) }
    }

    func files(in folder: DownloadDestination.Folder) throws -> [String] {
        try root.fileNames(at: ContainerPath(folder == .caches ? "Library/Caches" : "Documents")).sorted()
    }
}

/// Collects a session's events as they come (the stream is consumed by one task).
final class EventLog: Sendable {
    private final class Storage: Sendable {
        let events = Mutex<[DownloadEvent]>([])
    }

    private let storage = Storage()
    private let consumer: Task<Void, Never>

    init(_ session: DownloadSession) {
        let storage = self.storage
        let stream = session.events
        consumer = Task {
            for await event in stream { storage.events.withLock { $0.append(event) } }
        }
    }

    deinit { consumer.cancel() }

    var all: [DownloadEvent] { storage.events.withLock { $0 } }

    var restarts: [RestartReason] {
        all.compactMap { if case .didRestart(_, let reason) = $0 { reason } else { nil } }
    }

    var resumeOffsets: [Int64] {
        all.compactMap { if case .didResume(_, let offset, _) = $0 { offset } else { nil } }
    }

    var retries: Int {
        all.count { if case .willRetry = $0 { true } else { false } }
    }

    var progress: [TransferProgress] {
        all.compactMap { if case .didWriteData(_, let progress) = $0 { progress } else { nil } }
    }
}

/// Runs `body` with a fault server, stopped afterwards.
func withFaultServer(_ body: (FaultServer) async throws -> Void) async throws {
    let server = try await FaultServer.start()
    do {
        try await body(server)
    } catch {
        try? await server.stop()  // `error` propagates
        throw error
    }
    try await server.stop()
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
    var success: Success? {
        if case .success(let value) = self { value } else { nil }
    }
}
