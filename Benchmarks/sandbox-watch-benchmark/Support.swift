import Foundation
import Glibc
import SandboxWatch

// MARK: - Time and statistics

extension Duration {
    var milliseconds: Double { Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15 }
}

/// A percentile of some values (nearest rank), `nan` when there are none.
func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[max(0, min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))]
}

func median(_ values: [Double]) -> Double { percentile(values, 50) }

func ms(_ value: Double) -> String { value.isNaN ? "–" : String(format: "%.3f ms", value) }

// MARK: - A scratch container

/// A sandbox home with one container in a fresh directory under the benchmark's directory.
struct Scratch {
    let directory: String
    let container: Container
    var root: ConfinedRoot { container.root }
    var documents: String { container.hostPath(for: .documents) }

    init(in parent: String) throws {
        var template = Array("\(parent)/sandbox-watch-bench-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else {
            throw HostFiles.Failure(call: "mkdtemp", path: parent, code: errno)
        }
        directory = String(cString: created)
        let home = try SandboxHome(location: directory + "/home")
        container = try home.createContainer(for: AppIdentifier("com.example.watchbench"))
    }

    func remove() { try? FileManager.default.removeItem(atPath: directory) }
}

// MARK: - Writing files the way another process does

/// Plain system calls on host paths; each write returns the instant `close(2)` returned.
enum HostFiles {
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var path: String
        var code: Int32
        var description: String { "\(call) \(path): \(String(cString: strerror(code)))" }
    }

    @discardableResult
    static func write(
        _ path: String, _ bytes: [UInt8] = Array("hello\n".utf8), append: Bool = false
    ) throws -> ContinuousClock.Instant {
        let fd = try open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC))
        try writeAll(fd, bytes, path)
        return try close(fd, path)
    }

    static func open(_ path: String, _ flags: Int32) throws -> Int32 {
        let fd = Glibc.open(path, flags | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(call: "open", path: path, code: errno) }
        return fd
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], _ path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { throw Failure(call: "write", path: path, code: errno) }
            offset += count
        }
    }

    @discardableResult
    static func close(_ fd: Int32, _ path: String) throws -> ContinuousClock.Instant {
        guard Glibc.close(fd) == 0 else { throw Failure(call: "close", path: path, code: errno) }
        return .now
    }

    static func rename(_ from: String, _ to: String) throws {
        guard Glibc.rename(from, to) == 0 else { throw Failure(call: "rename", path: from, code: errno) }
    }
}

// MARK: - Recording what arrives

/// Things received on another thread, each with the instant it arrived; waits on a condition
/// variable (woken by every arrival), with a deadline.
final class Recorder<Element>: @unchecked Sendable {
    private let condition = NSCondition()
    private var items: [(value: Element, at: ContinuousClock.Instant)] = []
    private var ended = false

    func append(_ value: Element) {
        let now = ContinuousClock.now
        condition.lock()
        items.append((value, now))
        condition.broadcast()
        condition.unlock()
    }

    func end() {
        condition.lock()
        ended = true
        condition.broadcast()
        condition.unlock()
    }

    var received: [(value: Element, at: ContinuousClock.Instant)] {
        condition.lock()
        defer { condition.unlock() }
        return items
    }

    /// Waits until `condition` holds for everything received so far (it is called under the lock,
    /// with the items and the index it may resume from), for at most `timeout`.
    @discardableResult
    func wait(
        timeout: Duration = .seconds(10), until predicate: ([(value: Element, at: ContinuousClock.Instant)]) -> Bool
    ) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout.milliseconds / 1000)
        condition.lock()
        defer { condition.unlock() }
        while !predicate(items) {
            if ended || !condition.wait(until: deadline) { return predicate(items) }
        }
        return true
    }

    /// Waits until nothing has arrived for `quiet` (or `timeout` passed).
    func waitForSilence(_ quiet: Duration, timeout: Duration = .seconds(30)) {
        let deadline = ContinuousClock.now + timeout
        condition.lock()
        defer { condition.unlock() }
        while ContinuousClock.now < deadline {
            let lastCount = items.count
            _ = condition.wait(until: Date(timeIntervalSinceNow: quiet.milliseconds / 1000))
            if items.count == lastCount { return }
        }
    }
}

/// Records a monitor's events on a task of its own.
func record(_ monitor: FolderMonitor) -> Recorder<FolderEvent> {
    let recorder = Recorder<FolderEvent>()
    Task.detached {
        for await event in monitor.events { recorder.append(event) }
        recorder.end()
    }
    return recorder
}

/// One watcher update, reduced to what the benchmark checks.
struct UpdateSummary: Sendable {
    var count: Int
    var added: Set<String>
    var didOverflow: Bool
}

func record(_ watcher: FolderWatcher) -> Recorder<UpdateSummary> {
    let recorder = Recorder<UpdateSummary>()
    Task.detached {
        for await update in watcher.updates {
            recorder.append(
                UpdateSummary(
                    count: update.snapshot.items.count, added: Set(update.changes.added.map(\.description)),
                    didOverflow: update.didOverflow))
        }
        recorder.end()
    }
    return recorder
}

// MARK: - inotifywait, the peer

/// `inotifywait -m` running with its standard output read line by line on a thread of its own, each
/// line timestamped when it is read.
final class Inotifywait: @unchecked Sendable {
    static let executable =
        ([String](arrayLiteral: "/usr/bin/inotifywait", "/bin/inotifywait", "/usr/local/bin/inotifywait")).first {
            access($0, X_OK) == 0
        }

    let process = Process()
    let lines = Recorder<String>()
    private let reader: Thread

    /// Starts `inotifywait -m -r -q --format '%e %w%f' -e EVENTS directory` and waits until its
    /// watches are in place (a probe file's close_write was reported).
    init(directory: String, events: [String]) throws {
        guard let executable = Self.executable else {
            throw HostFiles.Failure(call: "inotifywait", path: "", code: ENOENT)
        }
        process.executableURL = URL(fileURLWithPath: executable)
        var arguments = ["-m", "-r", "-q", "--format", "%e %w%f"]
        for event in Set(events + ["close_write"]) { arguments += ["-e", event] }
        process.arguments = arguments + [directory]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        let fd = pipe.fileHandleForReading.fileDescriptor
        let lines = lines
        reader = Thread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 1 << 16)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else { break }
                for byte in buffer[0..<count] {
                    if byte == UInt8(ascii: "\n") {
                        lines.append(String(decoding: pending, as: UTF8.self))
                        pending.removeAll(keepingCapacity: true)
                    } else {
                        pending.append(byte)
                    }
                }
            }
            lines.end()
        }
        try process.run()
        reader.start()
        // Watches are established once a probe's close_write comes back.
        var attempt = 0
        while true {
            let probe = "\(directory)/.probe-\(attempt)"
            try HostFiles.write(probe, [])
            if lines.wait(timeout: .milliseconds(200), until: { $0.contains { $0.value.hasSuffix(probe) } }) {
                unlink(probe)
                break
            }
            unlink(probe)
            attempt += 1
            guard attempt < 50 else {
                throw HostFiles.Failure(call: "inotifywait start", path: directory, code: ETIMEDOUT)
            }
        }
    }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    func suspend() { kill(process.processIdentifier, SIGSTOP) }
    func resume() { kill(process.processIdentifier, SIGCONT) }
}
