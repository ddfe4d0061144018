// Measures SandboxWatch against the goals of issue 6 at full size, with `inotifywait` as the peer in
// the same run, and prints a markdown table with each goal beside its measurement (medians over the
// runs; the spread is in the "runs" column). Not run by CI.
//
//     apt-get install -y inotify-tools      # the peer; without it its rows say "not installed"
//     swift run -c release sandbox-watch-benchmark [--files N] [--burst N] [--runs N] [--pause-runs N] [--dir PATH]
//     swift run -c release sandbox-watch-benchmark --startup-folders 10000 50000 100000 [--runs N]   (StartupBenchmark.swift)
//
// Goal 3 pauses the monitor's reader with its `pauseReading()` hook (SPI `Testing`, the same one the
// overflow tests use), creating `max_queued_events / 2 + 1000` files meanwhile.
import ArgumentParser
import BenchmarkSupport
import Foundation
import Glibc
@_spi(Testing) import SandboxWatch

struct Configuration: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-watch-benchmark",
        abstract: "The folder monitor against the goals of issue 6, with inotifywait as the peer."
    )

    @Option(help: "How many files goal 1 writes, one at a time.") var files = 1_000
    @Option(help: "How many files goal 2's burst writes.") var burst = 10_000
    @Option(help: "How many times goals 1 to 3 run.") var runs = 5
    @Option(help: "How many times goal 4 (writers pausing 2 s) runs.") var pauseRuns = 3
    @Option(help: "How many coalesced updates goal 1 times.") var settleSamples = 50
    @Option(name: .customLong("dir"), help: "The folder watched.") var directory = "/tmp"
    @Option(
        name: .customLong("startup-folders"), parsing: .upToNextOption,
        help: "Measure only the start-up on trees of these many folders against inotifywait (issue 31)."
    ) var startupFolders: [Int] = []
}

/// One row of the table: a measurement per run, how to show it, and whether it meets the goal.
struct Row {
    var goal: String
    var measurement: String
    var target: String
    var values: [Double]
    var format: (Double) -> String = ms
    var passes: ((Double) -> Bool)?

    var line: String {
        let value = median(values)
        let verdict = passes.map { $0(value) ? "yes" : "**no**" } ?? "–"
        let spread = values.map(format).joined(separator: ", ")
        return "| \(goal) | \(measurement) | \(target) | \(format(value)) | \(verdict) | \(spread) |"
    }
}

func count(_ value: Double) -> String { value.isNaN ? "–" : String(Int(value)) }
func yesNo(_ value: Double) -> String { value.isNaN ? "–" : value == 1 ? "yes" : "no" }

if CommandLine.arguments.count == 3 && CommandLine.arguments[1] == "worker-startup" {
    try startupWorker(home: CommandLine.arguments[2])
    exit(0)
}
let configuration = Configuration.parseOrExit()
let maxQueued =
    Int(
        (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))?.trimmingCharacters(
            in: .whitespacesAndNewlines) ?? "") ?? 16_384
let documentsPath = ContainerPath(constant: "Documents")
var rows: [Row] = []
let hasPeer = Inotifywait.executable != nil
FileHandle.standardError.write(
    Data(
        "sandbox-watch-benchmark: \(configuration.runs) runs, \(configuration.files) files, burst \(configuration.burst), max_queued_events \(maxQueued), inotifywait \(hasPeer ? "present" : "missing")\n"
            .utf8))

func progress(_ text: String) { FileHandle.standardError.write(Data((text + "\n").utf8)) }

if !configuration.startupFolders.isEmpty {
    try startupBenchmark(
        sizes: configuration.startupFolders, runs: configuration.runs, directory: configuration.directory)
    exit(0)
}

// MARK: 1. Latency

/// close(2) → `added` (as the consumer receives it) and close → `ready` minus the quiet period, one
/// file at a time (each waits for its `added`), for `files` files. Returns (p50, p99) of both.
func monitorLatency(_ files: Int) throws -> (added: (Double, Double), ready: (Double, Double)) {
    let scratch = try Scratch(in: configuration.directory)
    defer { scratch.remove() }
    let quiet = Duration.milliseconds(100)
    let monitor = try FolderMonitor(watching: documentsPath, in: scratch.root, configuration: .init(quietPeriod: quiet))
    defer { monitor.cancel() }
    let events = record(monitor)
    var closes: [String: ContinuousClock.Instant] = [:]
    for index in 0..<files {
        let name = "Documents/f\(index)"
        closes[name] = try HostFiles.write(scratch.documents + "/f\(index)")
        let target = FolderEvent.added(try ContainerPath(name), isDirectory: false)
        var from = 0
        events.wait { items in
            defer { from = items.count }
            return items[from...].contains { $0.value == target }
        }
    }
    events.wait(timeout: .seconds(30)) { items in
        items.count { if case .ready = $0.value { true } else { false } } >= files
    }
    var added: [Double] = []
    var ready: [Double] = []
    for item in events.received {
        switch item.value {
        case .added(let path, _):
            if let close = closes[path.description] { added.append((item.at - close).milliseconds) }
        case .ready(let path):
            if let close = closes[path.description] { ready.append((item.at - close - quiet).milliseconds) }
        default: break
        }
    }
    return ((percentile(added, 50), percentile(added, 99)), (percentile(ready, 50), percentile(ready, 99)))
}

/// The same files, one at a time, seen by `inotifywait -m -r -e close_write`: close → its line read.
func peerLatency(_ files: Int) throws -> (Double, Double) {
    let scratch = try Scratch(in: configuration.directory)
    defer { scratch.remove() }
    let peer = try Inotifywait(directory: scratch.documents, events: ["close_write"])
    defer { peer.stop() }
    var latencies: [Double] = []
    for index in 0..<files {
        let path = scratch.documents + "/f\(index)"
        let close = try HostFiles.write(path)
        var from = 0
        var seen: ContinuousClock.Instant?
        peer.lines.wait { items in
            defer { from = items.count }
            seen = items[from...].first { $0.value.hasSuffix(" " + path) }?.at
            return seen != nil
        }
        if let seen { latencies.append((seen - close).milliseconds) }
    }
    return (percentile(latencies, 50), percentile(latencies, 99))
}

/// close → the FolderWatcher update that carries the file, one file at a time.
func watcherLatency(settle: Duration, samples: Int) throws -> (Double, Double) {
    let scratch = try Scratch(in: configuration.directory)
    defer { scratch.remove() }
    let watcher = try FolderWatcher(
        watching: documentsPath, in: scratch.root, configuration: .init(quietPeriod: settle))
    defer { watcher.cancel() }
    let updates = record(watcher)
    var latencies: [Double] = []
    for index in 0..<samples {
        let name = "Documents/s\(index)"
        let close = try HostFiles.write(scratch.documents + "/s\(index)")
        var from = 0
        var seen: ContinuousClock.Instant?
        updates.wait { items in
            defer { from = items.count }
            seen = items[from...].first { $0.value.added.contains(name) }?.at
            return seen != nil
        }
        if let seen { latencies.append((seen - close).milliseconds) }
    }
    return (percentile(latencies, 50), percentile(latencies, 99))
}

// MARK: 2. Burst

struct BurstResult {
    var complete: Bool
    var lastCloseToFinal: Double
    var notifications: Int
    var overflows: Int
}

/// `count` empty files created as fast as possible on another thread while a FolderWatcher watches.
func watcherBurst(_ count: Int) throws -> BurstResult {
    let scratch = try Scratch(in: configuration.directory)
    defer { scratch.remove() }
    let watcher = try FolderWatcher(
        watching: documentsPath, in: scratch.root, configuration: .init(quietPeriod: .milliseconds(50)))
    defer { watcher.cancel() }
    let updates = record(watcher)
    let expected = watcher.initialSnapshot.items.count + count
    var lastClose = ContinuousClock.now
    for index in 0..<count { lastClose = try HostFiles.write(scratch.documents + "/b-\(index)", []) }
    let complete = updates.wait(timeout: .seconds(30)) { $0.last?.value.count == expected }
    // Any later notification would count too: wait a while for stragglers.
    updates.waitForSilence(.milliseconds(600), timeout: .seconds(5))
    let received = updates.received
    let final = received.first { $0.value.count == expected }
    return BurstResult(
        complete: complete,
        lastCloseToFinal: final.map { ($0.at - lastClose).milliseconds } ?? .nan,
        notifications: received.count,
        overflows: received.count { $0.value.didOverflow }
    )
}

/// The same burst seen by `inotifywait -m -r -e create -e close_write`: how many events it printed,
/// and how many of the files it reported closed.
func peerBurst(_ count: Int) throws -> (events: Int, files: Int, lastCloseToLast: Double) {
    let scratch = try Scratch(in: configuration.directory)
    defer { scratch.remove() }
    let peer = try Inotifywait(directory: scratch.documents, events: ["create", "close_write"])
    defer { peer.stop() }
    let start = peer.lines.received.count
    var lastClose = ContinuousClock.now
    for index in 0..<count { lastClose = try HostFiles.write(scratch.documents + "/b-\(index)", []) }
    peer.lines.waitForSilence(.milliseconds(1000))
    let lines = peer.lines.received[start...].filter { $0.value.contains("/b-") }
    let closed = Set(lines.filter { $0.value.hasPrefix("CLOSE_WRITE") }.map(\.value))
    return (lines.count, closed.count, lines.last.map { ($0.at - lastClose).milliseconds } ?? .nan)
}

// MARK: 3. Overflow

struct OverflowResult {
    var reported: Bool
    var resumedToComplete: Double
}

/// The monitor's reader paused while `count` files are created, then resumed: `overflow` reported and
/// every file `added`, measured from resuming.
func monitorOverflow(_ count: Int) throws -> OverflowResult {
    let scratch = try Scratch(in: configuration.directory)
    defer { scratch.remove() }
    let monitor = try FolderMonitor(watching: documentsPath, in: scratch.root)
    defer { monitor.cancel() }
    let events = record(monitor)
    monitor.pauseReading()
    for index in 0..<count { try HostFiles.write(scratch.documents + "/o-\(index)", []) }
    let resumed = ContinuousClock.now
    monitor.resumeReading()
    var added = Set<ContainerPath>()
    var overflow = false
    var from = 0
    let complete = events.wait(timeout: .seconds(30)) { items in
        for item in items[from...] {
            switch item.value {
            case .added(let path, _): added.insert(path)
            case .overflow: overflow = true
            default: break
            }
        }
        from = items.count
        return overflow && added.count >= count
    }
    let at = events.received.last?.at ?? resumed
    return OverflowResult(reported: overflow, resumedToComplete: complete ? (at - resumed).milliseconds : .nan)
}

/// The same with a FolderWatcher: an update with `didOverflow` and the complete snapshot.
func watcherOverflow(_ count: Int) throws -> OverflowResult {
    let scratch = try Scratch(in: configuration.directory)
    defer { scratch.remove() }
    let watcher = try FolderWatcher(
        watching: documentsPath, in: scratch.root, configuration: .init(quietPeriod: .milliseconds(50)))
    defer { watcher.cancel() }
    let updates = record(watcher)
    let expected = watcher.initialSnapshot.items.count + count
    watcher.pauseReading()
    for index in 0..<count { try HostFiles.write(scratch.documents + "/w-\(index)", []) }
    let resumed = ContinuousClock.now
    watcher.resumeReading()
    let complete = updates.wait(timeout: .seconds(30)) { $0.last?.value.count == expected }
    let received = updates.received
    return OverflowResult(
        reported: received.contains { $0.value.didOverflow },
        resumedToComplete: complete ? ((received.last?.at ?? resumed) - resumed).milliseconds : .nan
    )
}

/// inotifywait stopped (SIGSTOP) while the files are created, then continued: how many of the files
/// it reports, and whether it says anything about the overflow.
func peerOverflow(_ count: Int) throws -> (files: Int, overflowLines: Int) {
    let scratch = try Scratch(in: configuration.directory)
    defer { scratch.remove() }
    let peer = try Inotifywait(directory: scratch.documents, events: ["create", "close_write"])
    defer { peer.stop() }
    peer.suspend()
    for index in 0..<count { try HostFiles.write(scratch.documents + "/o-\(index)", []) }
    peer.resume()
    peer.lines.waitForSilence(.milliseconds(1000))
    let lines = peer.lines.received.map(\.value)
    let files = Set(lines.filter { $0.contains("/o-") }.compactMap { $0.split(separator: " ").last.map(String.init) })
    return (files.count, lines.count { $0.contains("OVERFLOW") })
}

// MARK: 4. Readiness

struct ReadinessResult {
    var prematureReady: Bool
    var closeToReady: Double
    var chunkReadies: Int
    var renameReadies: Int
    var tempReadies: Int
    var readiesAfterBarrier: Int
}

/// A writer pausing 2 s with its file open mid-write; a writer reopening per chunk; an atomic rename.
func readiness(quiet: Duration) throws -> ReadinessResult {
    let scratch = try Scratch(in: configuration.directory)
    defer { scratch.remove() }
    let monitor = try FolderMonitor(watching: documentsPath, in: scratch.root, configuration: .init(quietPeriod: quiet))
    defer { monitor.cancel() }
    let events = record(monitor)
    let docs = scratch.documents
    let path = docs + "/paused.bin"
    let fd = try HostFiles.open(path, O_WRONLY | O_CREAT | O_TRUNC)
    try HostFiles.writeAll(fd, [UInt8](repeating: 1, count: 65_536), path)
    Thread.sleep(forTimeInterval: 2)  // the writer's pause, with the file open: part of the scenario
    try HostFiles.writeAll(fd, [UInt8](repeating: 2, count: 65_536), path)
    let premature = events.received.contains { $0.value == .ready(ContainerPath(constant: "Documents/paused.bin")) }
    let close = try HostFiles.close(fd, path)
    events.wait { $0.contains { $0.value == .ready(ContainerPath(constant: "Documents/paused.bin")) } }
    let readyAt = events.received.first { $0.value == .ready(ContainerPath(constant: "Documents/paused.bin")) }?.at

    for chunk in 0..<5 { try HostFiles.write(docs + "/chunks.log", Array("chunk \(chunk)\n".utf8), append: chunk > 0) }
    try HostFiles.write(docs + "/.report.pdf.tmp", [UInt8](repeating: 7, count: 100_000))
    try HostFiles.rename(docs + "/.report.pdf.tmp", docs + "/report.pdf")
    // A barrier: every ready due earlier has been delivered once the barrier's has.
    try HostFiles.write(docs + "/barrier")
    events.wait { $0.contains { $0.value == .ready(ContainerPath(constant: "Documents/barrier")) } }
    let atBarrier = events.received.map(\.value)
    // Readies that come after the barrier's (should be none) still count: wait for silence.
    events.waitForSilence(.milliseconds(500), timeout: .seconds(5))
    let received = events.received.map(\.value)
    return ReadinessResult(
        prematureReady: premature,
        closeToReady: readyAt.map { ($0 - close).milliseconds } ?? .nan,
        chunkReadies: received.count { $0 == .ready(ContainerPath(constant: "Documents/chunks.log")) },
        renameReadies: received.count { $0 == .ready(ContainerPath(constant: "Documents/report.pdf")) },
        tempReadies: received.count { $0 == .ready(ContainerPath(constant: "Documents/.report.pdf.tmp")) },
        readiesAfterBarrier: received.count { if case .ready = $0 { true } else { false } }
            - atBarrier.count { if case .ready = $0 { true } else { false } }
    )
}

// MARK: - Running

func runs<T>(_ label: String, _ n: Int, _ body: () throws -> T) -> [T] {
    var results: [T] = []
    for run in 1...max(1, n) {
        progress("\(label): run \(run)/\(n)")
        do { results.append(try body()) } catch { progress("\(label): run \(run) failed: \(error)") }
    }
    return results
}

let runCount = configuration.runs
let files = configuration.files
let settle = Duration.milliseconds(50)
let overflowCount = maxQueued / 2 + 1_000

let latency = runs("latency", runCount) { try monitorLatency(files) }
rows.append(
    Row(
        goal: "1", measurement: "close → `added` p50 (\(files) files, one at a time)", target: "≤ 1 ms",
        values: latency.map(\.added.0), passes: { $0 <= 1 }))
rows.append(
    Row(
        goal: "1", measurement: "close → `added` p99", target: "≤ 20 ms", values: latency.map(\.added.1),
        passes: { $0 <= 20 }))
rows.append(
    Row(
        goal: "1/4", measurement: "close → `ready`, minus the 100 ms quiet period, p50", target: "≤ 100 ms",
        values: latency.map(\.ready.0), passes: { $0 <= 100 }))
rows.append(
    Row(
        goal: "1/4", measurement: "close → `ready`, minus the quiet period, p99", target: "≤ 100 ms",
        values: latency.map(\.ready.1), passes: { $0 <= 100 }))
if hasPeer {
    let peer = runs("inotifywait latency", runCount) { try peerLatency(files) }
    rows.append(
        Row(
            goal: "1 peer", measurement: "inotifywait -m -r: close → CLOSE_WRITE line p50", target: "(peer)",
            values: peer.map(\.0)))
    rows.append(
        Row(
            goal: "1 peer", measurement: "inotifywait -m -r: close → CLOSE_WRITE line p99", target: "(peer)",
            values: peer.map(\.1)))
}
let coalesced = runs("watcher latency", runCount) {
    try watcherLatency(settle: settle, samples: configuration.settleSamples)
}
rows.append(
    Row(
        goal: "1",
        measurement: "close → FolderWatcher update, settle 50 ms, p50 (\(configuration.settleSamples) files)",
        target: "≤ 70 ms", values: coalesced.map(\.0), passes: { $0 <= 70 }))
rows.append(
    Row(
        goal: "1", measurement: "close → FolderWatcher update, settle 50 ms, p99", target: "≤ 70 ms",
        values: coalesced.map(\.1), passes: { $0 <= 70 }))

let burst = runs("burst", runCount) { try watcherBurst(configuration.burst) }
let burstFiles = configuration.burst
rows.append(
    Row(
        goal: "2", measurement: "burst of \(burstFiles): all in the final snapshot (every run)", target: "yes",
        values: [burst.allSatisfy(\.complete) && !burst.isEmpty ? 1 : 0], format: yesNo, passes: { $0 == 1 }))
rows.append(
    Row(
        goal: "2", measurement: "burst: last close → final update", target: "≤ 250 ms",
        values: burst.map(\.lastCloseToFinal), passes: { $0 <= 250 }))
rows.append(
    Row(
        goal: "2", measurement: "burst: notifications", target: "≤ 10", values: burst.map { Double($0.notifications) },
        format: count, passes: { $0 <= 10 }))
rows.append(
    Row(
        goal: "2", measurement: "burst: notifications with didOverflow", target: "(info)",
        values: burst.map { Double($0.overflows) }, format: count))
if hasPeer {
    let peer = runs("inotifywait burst", runCount) { try peerBurst(burstFiles) }
    rows.append(
        Row(
            goal: "2 peer",
            measurement: "inotifywait -m -r: events printed (CREATE + CLOSE_WRITE, \(2 * burstFiles) expected)",
            target: "(peer)", values: peer.map { Double($0.events) }, format: count))
    rows.append(
        Row(
            goal: "2 peer", measurement: "inotifywait: files reported closed", target: "(peer)",
            values: peer.map { Double($0.files) }, format: count))
    rows.append(
        Row(
            goal: "2 peer", measurement: "inotifywait: last close → last line", target: "(peer)",
            values: peer.map(\.lastCloseToLast)))
}

let overflowMonitor = runs("overflow (monitor)", runCount) { try monitorOverflow(overflowCount) }
rows.append(
    Row(
        goal: "3", measurement: "FolderMonitor paused, \(overflowCount) files: `overflow` reported (every run)",
        target: "yes", values: [overflowMonitor.allSatisfy(\.reported) && !overflowMonitor.isEmpty ? 1 : 0],
        format: yesNo, passes: { $0 == 1 }))
rows.append(
    Row(
        goal: "3", measurement: "FolderMonitor: resume → every file `added`", target: "≤ 1,000 ms",
        values: overflowMonitor.map(\.resumedToComplete), passes: { $0 <= 1000 }))
let overflowWatcher = runs("overflow (watcher)", runCount) { try watcherOverflow(overflowCount) }
rows.append(
    Row(
        goal: "3", measurement: "FolderWatcher paused: update with didOverflow (every run)", target: "yes",
        values: [overflowWatcher.allSatisfy(\.reported) && !overflowWatcher.isEmpty ? 1 : 0], format: yesNo,
        passes: { $0 == 1 }))
rows.append(
    Row(
        goal: "3", measurement: "FolderWatcher: resume → complete snapshot", target: "≤ 1,000 ms",
        values: overflowWatcher.map(\.resumedToComplete), passes: { $0 <= 1000 }))
if hasPeer {
    let peer = runs("inotifywait overflow", runCount) { try peerOverflow(overflowCount) }
    rows.append(
        Row(
            goal: "3 peer", measurement: "inotifywait SIGSTOPped: files reported of \(overflowCount)", target: "(peer)",
            values: peer.map { Double($0.files) }, format: count))
    rows.append(
        Row(
            goal: "3 peer", measurement: "inotifywait: lines mentioning the overflow", target: "(peer)",
            values: peer.map { Double($0.overflowLines) }, format: count))
}

let ready = runs("readiness", configuration.pauseRuns) { try readiness(quiet: .milliseconds(100)) }
rows.append(
    Row(
        goal: "4", measurement: "writer pausing 2 s mid-write: premature `ready` (any run)", target: "no",
        values: [ready.isEmpty ? .nan : ready.contains(where: \.prematureReady) ? 1 : 0], format: yesNo,
        passes: { $0 == 0 }))
rows.append(
    Row(
        goal: "4", measurement: "paused writer: close → `ready` (quiet 100 ms)", target: "≤ 200 ms",
        values: ready.map(\.closeToReady), passes: { $0 <= 200 }))
rows.append(
    Row(
        goal: "4", measurement: "reopen-per-chunk writer (5 chunks): `ready`s (every run)", target: "1",
        values: ready.map { Double($0.chunkReadies) }, format: count,
        passes: { _ in ready.allSatisfy { $0.chunkReadies == 1 } }))
rows.append(
    Row(
        goal: "4", measurement: "(diagnostic) `ready`s arriving after the later-written barrier file's", target: "0",
        values: ready.map { Double($0.readiesAfterBarrier) }, format: count))
rows.append(
    Row(
        goal: "4", measurement: "atomic-rename producer: `ready`s for the final name / the temp name", target: "1 / 0",
        values: ready.map { Double($0.renameReadies * 10 + $0.tempReadies) },
        format: { $0.isNaN ? "–" : "\(Int($0) / 10) / \(Int($0) % 10)" },
        passes: { _ in ready.allSatisfy { $0.renameReadies == 1 && $0.tempReadies == 0 } }))

print(
    """
    ### SandboxWatch vs issue 6 goals (\(runCount) runs, medians; \(ProcessInfo.processInfo.activeProcessorCount) cores, max_queued_events \(maxQueued))

    | Goal | Measurement | Target | Median | Meets | Runs |
    |---|---|---|---|---|---|
    """)
for row in rows { print(row.line) }
if !hasPeer { print("\ninotifywait not installed (`apt-get install -y inotify-tools`): peer rows skipped.") }
print("\nwatchman: not measured (not installed).")
