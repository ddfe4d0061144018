// Measures background downloads through sandboxd against the goals of issues 13 and 31, with the
// foreground DownloadSession, curl and aria2c as peers in the same run against the same local
// nginx, and prints markdown tables (medians over the runs). Not run by CI.
//
//     apt-get install -y nginx curl aria2
//     swift build --package-path Benchmarks -c release --product sandboxd
//     swift build --package-path Benchmarks -c release --product sandbox-background-benchmark
//     Benchmarks/.build/release/sandbox-background-benchmark --sandboxd Benchmarks/.build/release/sandboxd \
//         [--mib N] [--runs N] [--sizes 1000,5000,10000] [--aria-up-to 5000] [--scale 100000] [--only large|queue|scale]
//
// 1. One large file (1 GiB): a BackgroundSession task (submitted to sandboxd, timed until its
//    completion event) against a foreground DownloadSession task and `curl -o` (goal: ≤ 5 % over).
// 2. At each queued size (a curve), files of 16 KiB queued at once on the daemon
//    (`downloadTasks(with:)`), 8 at a time, until the last completion event; the in-process
//    DownloadSession configured as the daemon's; `aria2c -j 8 -i list` up to --aria-up-to files
//    (goals: files/s flat over the sizes; ≤ 1.0× aria2c's time).
// 3. Each size's daemon (its own runtime and state folders) is stopped after the size: its peak
//    RSS (VmHWM) is that size's.
// 4. The events of a detached batch (finished + completed per task), queued while no app was
//    attached, delivered to an app that re-attaches: events per second until "all delivered"
//    (goal ≥ 10,000/s at every size).
// 5. --scale tasks (small files): submit, list, the downloads, RSS (goal < 128 MiB) and re-attach.
import ArgumentParser
import BenchmarkSupport
import Foundation
import Sandbox
import SandboxTransfer
import SandboxTransferTesting

struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-background-benchmark",
        abstract: "Background downloads through sandboxd against the foreground session, curl and aria2c."
    )

    @Option(name: .customLong("mib"), help: "The size of the large file, in MiB.") var mebibytes = 1024
    @Option(help: "How many times each part runs.") var runs = 3
    @Option(help: "The queued sizes of the curve (16 KiB files), comma-separated.") var sizes = "1000,5000,10000"
    @Option(help: "aria2c runs beside the queue up to this size.") var ariaUpTo = 5000
    @Option(help: "The queued tasks of the scale part (0: none).") var scale = 100_000
    @Option(help: "The size of the scale part's files, in bytes.") var scaleBytes = 1024
    @Option(help: "The sandboxd executable (a release build).") var sandboxd = ".build/release/sandboxd"
    @Option(help: "Run only this part: large, queue or scale.") var only: String?

    var queuedSizes: [Int] { sizes.split(separator: ",").compactMap { Int($0) } }
}

let options = Options.parseOrExit()
guard FileManager.default.isExecutableFile(atPath: options.sandboxd) else {
    print("No sandboxd at \(options.sandboxd): swift build -c release --product sandboxd")
    exit(2)
}
setenv("SANDBOXD_PATH", URL(fileURLWithPath: options.sandboxd).standardizedFileURL.path, 1)
let nginx = try await NginxServer.start(workers: "2")
let scratch = try ScratchDirectory.make(prefix: "sandbox-background-bench")
defer { scratch.remove() }
let home = try SandboxHome(location: scratch.appending("home"))
let app = try AppIdentifier("com.example.background-benchmark")
let container = try home.createContainer(for: app)
let largePaths = try daemonPaths("large")

func session(
    _ identifier: String, receivesEvents: Bool = true, paths: DaemonPaths = largePaths
) async throws
    -> BackgroundSession
{
    var configuration = BackgroundConfiguration.background(identifier: identifier)
    configuration.daemonPaths = paths
    configuration.receivesEvents = receivesEvents
    return try await BackgroundSession(configuration: configuration, app: app, in: home)
}

/// Waits for `count` completions on `session`'s events; returns the events seen.
func completions(
    _ count: Int, of session: BackgroundSession, until stop: (BackgroundEvent) -> Bool = { _ in false }
)
    async throws -> Int
{
    var completed = 0
    var events = 0
    for await event in session.events {
        events += 1
        if case .didComplete(_, let error) = event {
            if let error { throw BenchmarkFailure("a task failed: \(error)") }
            completed += 1
        }
        if completed >= count || stop(event) { return events }
    }
    throw BenchmarkFailure("the daemon connection closed")
}

func url(_ path: String) throws -> URL {
    guard let url = URL(string: nginx.url(path)) else { throw BenchmarkFailure("bad URL \(path)") }
    return url
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

func remove(_ path: String) {
    try? FileManager.default.removeItem(atPath: path)  // the next run starts clean
}

/// Moves a run's small files aside (deleted with the scratch folder at the end) instead of
/// deleting them: ext4 without a journal (this machine's) reads and skips every inode deleted in
/// the last minute when it allocates a new one, so 1,000 files deleted between runs made every
/// file creation of the next tool slower — whichever ran after the most deletions lost.
func setAside(_ path: String) throws {
    let trash = scratch.appending("set-aside")
    try FileManager.default.createDirectory(atPath: trash, withIntermediateDirectories: true)
    try FileManager.default.moveItem(atPath: path, toPath: trash + "/\(UUID().uuidString)")
}

print(
    "# sandbox-background-benchmark: \(options.mebibytes) MiB file, \(options.runs) runs, queued \(options.sizes), scale \(options.scale); load \(loadAverage())\n"
)

// 1. The large file.
if options.only == nil || options.only == "large" {
    let size = options.mebibytes << 20
    let bytes = (0..<size / 8).map { _ in UInt64.random(in: 0...UInt64.max) }
    try bytes.withUnsafeBytes { try Data($0).write(to: URL(fileURLWithPath: nginx.documentRoot + "/large.bin")) }
    let caches = container.hostPath(for: .caches)
    let large = try url("/files/large.bin")
    var background: [Double] = []
    var foreground: [Double] = []
    var curl: [Double] = []
    let attached = try await session("large")
    for run in 0..<options.runs {
        let start = ContinuousClock.now
        _ = try await attached.downloadTask(with: DownloadRequest(url: large, destination: .caches))
        _ = try await completions(1, of: attached)
        background.append((ContinuousClock.now - start).seconds)
        remove(caches + "/large.bin")

        let local = try DownloadSession(identifier: "fg\(run)", container: container)
        let started = ContinuousClock.now
        let task = try local.downloadTask(with: DownloadRequest(url: large, destination: .caches))
        task.resume()
        _ = try await task.result().get()
        foreground.append((ContinuousClock.now - started).seconds)
        remove(caches + "/large.bin")

        curl.append(try timeTool("/usr/bin/curl", ["-s", "-o", scratch.appending("curl.bin"), large.absoluteString]))
        remove(scratch.appending("curl.bin"))
    }
    await attached.detach()
    let (b, f, c) = (median(background), median(foreground), median(curl))
    func row(_ name: String, _ times: [Double], _ time: Double) -> String {
        let runs = times.map { String(format: "%.2f", $0) }.joined(separator: ", ")
        let rate = Double(size) / 1_048_576 / time
        return "| \(name) | \(String(format: "%.2f s", time)) | \(String(format: "%.0f MiB/s", rate)) | \(runs) |"
    }
    print("## 1. One \(options.mebibytes) MiB file from nginx on loopback\n")
    print("| how | median time | throughput | runs (s) |")
    print("|---|---|---|---|")
    print(row("background (sandboxd)", background, b))
    print(row("foreground DownloadSession", foreground, f))
    print(row("curl -o", curl, c))
    print(
        String(
            format: "\nbackground over foreground: %+.1f %%, over curl: %+.1f %% (goal ≤ 5 %%)", (b / f - 1) * 100,
            (b / c - 1) * 100))
    // Each run's background time over the foreground's of the same run: the spread of the overhead.
    let overheads = zip(background, foreground).map { ($0 / $1 - 1) * 100 }.sorted()
    print(
        "per run: \(overheads.map { String(format: "%+.1f %%", $0) }.joined(separator: ", ")); load \(loadAverage())\n")
}

// 2–4. Many small files queued at once, at each queued size (a curve): files/s of the daemon and
// of the in-process session, aria2c beside them up to --aria-up-to; per size a daemon of its own,
// so its VmHWM is that size's; the events of a detached batch delivered on re-attach.
if options.only == nil || options.only == "queue" {
    let urls = try makeFiles(options.queuedSizes.max() ?? 0, prefix: "s", bytes: 16 << 10)
    var rows: [String] = []
    for size in options.queuedSizes.sorted() {
        let batch = Array(urls.prefix(size))
        let listFile = scratch.appending("list-\(size).txt")
        try batch.map(\.absoluteString).joined(separator: "\n").write(
            toFile: listFile, atomically: true, encoding: .utf8)
        let paths = try daemonPaths("q\(size)")
        var daemon: [Double] = []
        var local: [Double] = []
        var aria: [Double] = []
        for run in 0..<options.runs {
            // The same session layer in this process, configured as the daemon's: what sandboxd adds.
            let foreground = try DownloadSession(
                identifier: "small\(size)-\(run)", container: container,
                configuration: .init(maximumConcurrentTasks: 8, maximumConcurrentTasksPerHost: 8))
            let started = ContinuousClock.now
            let tasks = try batch.map {
                try foreground.downloadTask(with: DownloadRequest(url: $0, destination: .caches))
            }
            for task in tasks { task.resume() }
            for task in tasks { _ = try await task.result().get() }
            local.append((ContinuousClock.now - started).seconds)
            try setAside(container.hostPath(for: .caches))

            // Every task submitted at once (the connection matches answers by id).
            let attached = try await session("q\(run)", paths: paths)
            let start = ContinuousClock.now
            _ = try await attached.downloadTasks(with: batch.map { DownloadRequest(url: $0, destination: .caches) })
            _ = try await completions(batch.count, of: attached)
            daemon.append((ContinuousClock.now - start).seconds)
            await attached.detach()
            try setAside(container.hostPath(for: .caches))

            if size <= options.ariaUpTo {
                aria.append(
                    try timeTool(
                        "/usr/bin/aria2c",
                        [
                            "-q", "-i", listFile, "-j", "8", "--file-allocation=none", "--allow-overwrite=true",
                            "-d", scratch.appending("aria-\(run)"),
                        ]))
                try setAside(scratch.appending("aria-\(run)"))
            }
        }
        let detached = try await detachedBatch(batch, paths: paths)
        try setAside(container.hostPath(for: .caches))
        let rate = { (times: [Double]) in times.isEmpty ? "—" : String(format: "%.0f", Double(size) / median(times)) }
        let ratio = aria.isEmpty ? "—" : String(format: "%.2f×", median(daemon) / median(aria))
        let spread = { (times: [Double]) in
            times.map { String(format: "%.0f", Double(size) / $0) }.joined(separator: ", ")
        }
        rows.append(
            "| \(size) | \(rate(local)) (\(spread(local))) | \(rate(daemon)) (\(spread(daemon))) | \(rate(aria)) | \(ratio) | \(mib(detached.peak)) | \(detached.reattach) | \(loadAverage()) |"
        )
        print(rows.last ?? "")
    }
    print("\n## 2–4. Files of 16 KiB queued at once, 8 at a time: the curve over the queued size\n")
    print(
        "| queued | in-process DownloadSession files/s (runs) | sandboxd files/s (runs) | aria2c -j 8 files/s | sandboxd ÷ aria2c (time) | sandboxd VmHWM | re-attach (detached batch) | load |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for row in rows { print(row) }
    print("")
}

// 5. A queue of --scale tasks (small files): submit, list, the downloads, RSS, re-attach.
if (options.only == nil || options.only == "scale") && options.scale > 0 {
    let urls = try makeFiles(options.scale, prefix: "t", bytes: options.scaleBytes)
    let requests = urls.map { DownloadRequest(url: $0, destination: .caches) }
    let paths = try daemonPaths("scale")
    let submitter = try await session("scale", receivesEvents: false, paths: paths)
    let pid = submitter.daemonPID
    let start = ContinuousClock.now
    _ = try await submitter.downloadTasks(with: requests)
    let submit = (ContinuousClock.now - start).seconds
    let afterSubmit = residentBytes(of: pid, field: "VmRSS")
    let listing = await timedListing(submitter)
    try await waitUntilIdle(paths)
    let downloads = (ContinuousClock.now - start).seconds
    let listed = await timedListing(submitter)
    await submitter.detach()
    let peak = residentBytes(of: pid, field: "VmHWM")
    let reattach = await reattached("scale", paths: paths)
    print("## 5. \(options.scale) queued tasks (\(options.scaleBytes) B files), sandboxd\n")
    print("| step | result |")
    print("|---|---|")
    print(
        String(format: "| submit (downloadTasks(with:)) | %.2f s, %.0f tasks/s |", submit, Double(urls.count) / submit))
    print("| list just after the submit | \(listing) |")
    print(
        String(
            format: "| all downloaded (from the submit) | %.1f s, %.0f files/s |", downloads,
            Double(urls.count) / downloads))
    print("| list of the completed tasks | \(listed) |")
    print("| sandboxd RSS after the submit; VmHWM at the end | \(mib(afterSubmit)); \(mib(peak)) |")
    print("| re-attach | \(reattach) |")
    print("\nload \(loadAverage())\n")
    kill(pid, SIGTERM)
}

/// `count` files of `bytes` random bytes named `<prefix><index>.bin` in nginx's folder; their URLs.
func makeFiles(_ count: Int, prefix: String, bytes: Int) throws -> [URL] {
    let words = max(1, bytes / 8)
    for index in 0..<count {
        let content = (0..<words).map { _ in UInt64.random(in: 0...UInt64.max) }
        try content.withUnsafeBytes {
            try Data($0).write(to: URL(fileURLWithPath: nginx.documentRoot + "/\(prefix)\(index).bin"))
        }
    }
    return try (0..<count).map { try url("/files/\(prefix)\($0).bin") }
}

/// Runtime and state folders of their own: a daemon of its own, with an empty queue.
func daemonPaths(_ name: String) throws -> DaemonPaths {
    var paths = DaemonPaths(home: home)
    paths.runtimeDirectory = scratch.appending("run-\(name)")
    paths.stateDirectory = scratch.appending("state-\(name)")
    for folder in [paths.runtimeDirectory, paths.stateDirectory] {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }
    return paths
}

/// Waits until the daemon has no unfinished task (polled every 20 ms).
func waitUntilIdle(_ paths: DaemonPaths) async throws {
    while try await DaemonStatus.query(paths: paths).activeTasks > 0 { try await Task.sleep(for: .milliseconds(20)) }
}

/// How long listing the session's tasks took, or why it failed.
func timedListing(_ session: BackgroundSession) async -> String {
    let start = ContinuousClock.now
    do {
        let tasks = try await session.taskList()
        let seconds = (ContinuousClock.now - start).seconds
        return String(format: "%d tasks in %.3f s (%.0f tasks/s)", tasks.count, seconds, Double(tasks.count) / seconds)
    } catch {
        return "failed: \(error)"
    }
}

/// Submits `batch` from a session that does not receive events and detaches once the downloads
/// are done; then the daemon's VmHWM (it is stopped afterwards) and the events re-attaching delivers.
func detachedBatch(_ batch: [URL], paths: DaemonPaths) async throws -> (peak: Double, reattach: String) {
    let submitter = try await session("detached", receivesEvents: false, paths: paths)
    let pid = submitter.daemonPID
    _ = try await submitter.downloadTasks(with: batch.map { DownloadRequest(url: $0, destination: .caches) })
    try await waitUntilIdle(paths)
    await submitter.detach()
    let reattach = await reattached("detached", paths: paths)
    let peak = residentBytes(of: pid, field: "VmHWM")
    kill(pid, SIGTERM)
    return (peak, reattach)
}

/// Attaches to `name` and times the queued events until "all delivered" (attach included).
func reattached(_ name: String, paths: DaemonPaths) async -> String {
    do {
        let queued = try await DaemonStatus.query(paths: paths).queuedEvents
        let start = ContinuousClock.now
        let again = try await session(name, paths: paths)
        let delivered = try await completions(Int.max, of: again) { event in
            if case .didFinishEvents = event { return true }
            return false
        }
        let seconds = (ContinuousClock.now - start).seconds
        await again.detach()
        return String(
            format: "%d of %d events in %.3f s: %.0f events/s", delivered - 1, queued, seconds,
            Double(delivered - 1) / seconds)
    } catch {
        return "failed: \(error)"
    }
}

await nginx.stopAndRemoveFiles()

func residentBytes(of pid: Int32, field: String) -> Double {
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""  // gone: 0
    for line in status.split(separator: "\n") where line.hasPrefix(field + ":") {
        let number = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first
        return Double(number.flatMap { Int($0) } ?? 0) * 1024
    }
    return 0
}

func loadAverage() -> String {
    let text = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?"  // no /proc: unknown
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}

func mib(_ bytes: Double) -> String { String(format: "%.1f MiB", bytes / 1_048_576) }
