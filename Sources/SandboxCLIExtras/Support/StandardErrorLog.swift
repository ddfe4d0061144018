import Foundation
import Glibc
import Logging
import SandboxCLISupport
import SandboxCore
import Synchronization

/// Log lines on standard error, written by a thread of their own: a caller formats its line,
/// appends it to a buffer and goes on; the writer puts out whatever has gathered in one `write`.
/// For a server that logs every request (`sandbox share`): swift-log's `StreamLogHandler` writes
/// and flushes each line on the caller's thread, which cost the sharing server about 15 % of its
/// small-file throughput.
///
/// The writer is woken by the first line after a quiet spell, then gathers for
/// ``gatherInterval`` before each write: under load it wakes a hundred times a second rather than
/// once a request (each wake is a context switch on the cores serving requests).
///
/// At most ``capacity`` bytes wait; lines past that are counted and reported as dropped rather
/// than held, so a stalled standard error cannot grow memory.
final class StandardErrorLog: Sendable {
    /// Most bytes waiting to be written.
    static let capacity = 1 << 20
    /// How long the writer lets lines gather before it writes them.
    static let gatherInterval: UInt32 = 10_000  // microseconds

    private struct Pending {
        var bytes: [UInt8] = []
        var dropped = 0
        /// The writer waits on ``ready`` and must be signalled (once) for the next line.
        var writerIsWaiting = false
    }

    private let pending = Mutex(Pending())
    private let ready = Semaphore()
    /// Held while lines are written, so that ``flush()`` keeps their order.
    private let writing = Mutex(())

    /// The one log of the process.
    static let shared = StandardErrorLog()

    /// Whether the writer thread runs; without it, each line is written on its caller's thread.
    private let hasWriter = Atomic(false)

    private init() {
        do {
            try OwnedThread.detached(name: "sandbox-log") { [self] in run() }
            hasWriter.store(true, ordering: .releasing)
        } catch {
            // No thread to spare: lines are written as they come (see `append`).
        }
    }

    /// Queues `line` (which ends in a newline).
    func append(_ line: String) {
        let wake = pending.withLock { pending -> Bool in
            if pending.bytes.count + line.utf8.count > Self.capacity {
                pending.dropped += 1
            } else {
                pending.bytes.append(contentsOf: line.utf8)
            }
            defer { pending.writerIsWaiting = false }
            return pending.writerIsWaiting
        }
        if wake { ready.signal() }
        if !hasWriter.load(ordering: .acquiring) { flush() }
    }

    /// Writes every queued line now, on the caller's thread (before the process exits).
    func flush() {
        writing.withLock { _ in writeQueued() }
    }

    private func run() {
        while true {
            let idle = pending.withLock { pending -> Bool in
                pending.writerIsWaiting = pending.bytes.isEmpty && pending.dropped == 0
                return pending.writerIsWaiting
            }
            if idle { ready.wait() }
            usleep(Self.gatherInterval)
            writing.withLock { _ in writeQueued() }
        }
    }

    private func writeQueued() {
        let (bytes, dropped) = pending.withLock { pending in
            defer { pending = Pending() }
            return (pending.bytes, pending.dropped)
        }
        if !bytes.isEmpty { StandardStreams.error(String(decoding: bytes, as: UTF8.self)) }
        if dropped > 0 { StandardStreams.error("(\(dropped) log lines dropped: standard error is too slow)\n") }
    }
}

/// A swift-log handler writing `<UTC time> <level> <label>: [<source>] <message>` lines to
/// ``StandardErrorLog``.
struct StandardErrorLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]
    var metadataProvider: Logger.MetadataProvider?

    init(label: String) {
        self.label = label
    }

    /// The logger of a command that logs what it handles (`share`, `restore`): lines on standard
    /// error at `level` and above, written by ``StandardErrorLog``'s thread.
    static func logger(label: String, level: Logger.Level = .info) -> Logger {
        var logger = Logger(label: label) { StandardErrorLogHandler(label: $0) }
        logger.logLevel = level
        return logger
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        StandardErrorLog.shared.append(
            "\(Self.timestamp()) \(event.level) \(label): [\(event.source)] \(event.message)\n")
    }

    /// The current time in UTC, to the second, as ISO 8601 (no time-zone lookup).
    private static func timestamp() -> String {
        UTCTimestamp.iso8601(secondsSince1970: Int64(time(nil)))
    }
}
