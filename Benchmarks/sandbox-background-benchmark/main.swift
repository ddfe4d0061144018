// Measures background downloads through sandboxd against the goals of issue 13, with the
// foreground DownloadSession, curl and aria2c as peers in the same run against the same local
// nginx, and prints a markdown table (medians over the runs). Not run by CI.
//
//     apt-get install -y nginx curl aria2
//     swift build -c release --product sandboxd
//     swift run --package-path Benchmarks -c release sandbox-background-benchmark [--mib N] [--runs N] [--small N]
//
// 1. One large file (1 GiB): a BackgroundSession task (submitted to sandboxd, timed until its
//    completion event) against a foreground DownloadSession task and `curl -o` (goal: ≤ 5 % over).
// 2. N small files (1,000 × 16 KiB) queued at once on the daemon (`downloadTasks(with:)`), 8 at a
//    time, until the last completion event, against `aria2c -j 8 -i list` (goal: ≤ 1.0× its time);
//    also with one `downloadTask(with:)` awaited after another.
// 3. The daemon's peak RSS (VmHWM) after a detached batch of N queued tasks (goal: < 64 MiB).
// 4. The events of that batch (finished + completed per task), queued while no app was attached,
//    delivered to an app that re-attaches: events per second until "all delivered" (goal: ≥ 10,000/s).
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
    @Option(help: "How many 16 KiB files the queued part downloads.") var small = 1000
    @Option(help: "The sandboxd executable (a release build).") var sandboxd = ".build/release/sandboxd"
    @Option(help: "Run only this part: large or queue.") var only: String?
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
let paths = {
    var paths = DaemonPaths(home: home)
    paths.runtimeDirectory = scratch.appending("run")
    return paths
}()
try FileManager.default.createDirectory(atPath: paths.runtimeDirectory, withIntermediateDirectories: true)

func session(_ identifier: String, receivesEvents: Bool = true) async throws -> BackgroundSession {
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
    "# sandbox-background-benchmark: \(options.mebibytes) MiB file, \(options.runs) runs, \(options.small) queued files\n"
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

// 2–4. Many small files queued at once.
if options.only == nil || options.only == "queue" {
    for index in 0..<options.small {
        let bytes = (0..<2048).map { _ in UInt64.random(in: 0...UInt64.max) }
        try bytes.withUnsafeBytes {
            try Data($0).write(to: URL(fileURLWithPath: nginx.documentRoot + "/s\(index).bin"))
        }
    }
    let urls = try (0..<options.small).map { try url("/files/s\($0).bin") }
    try urls.map(\.absoluteString).joined(separator: "\n").write(
        toFile: scratch.appending("list.txt"), atomically: true, encoding: .utf8)
    var daemon: [Double] = []
    var submitting: [Double] = []
    var pipelined: [Double] = []  // one submit after another
    var local: [Double] = []
    var aria: [Double] = []
    for run in 0..<options.runs {
        // The same session layer in this process, configured as the daemon's: what sandboxd adds.
        let foreground = try DownloadSession(
            identifier: "small\(run)", container: container,
            configuration: .init(maximumConcurrentTasks: 8, maximumConcurrentTasksPerHost: 8))
        let started = ContinuousClock.now
        let tasks = try urls.map { try foreground.downloadTask(with: DownloadRequest(url: $0, destination: .caches)) }
        for task in tasks { task.resume() }
        for task in tasks { _ = try await task.result().get() }
        local.append((ContinuousClock.now - started).seconds)
        try setAside(container.hostPath(for: .caches))

        // Every task submitted at once (the connection matches answers by id).
        let attached = try await session("q\(run)")
        let start = ContinuousClock.now
        _ = try await attached.downloadTasks(with: urls.map { DownloadRequest(url: $0, destination: .caches) })
        submitting.append((ContinuousClock.now - start).seconds)
        _ = try await completions(urls.count, of: attached)
        daemon.append((ContinuousClock.now - start).seconds)
        await attached.detach()
        try setAside(container.hostPath(for: .caches))

        // The same, with one submit awaited after another.
        let sequential = try await session("p\(run)")
        let begun = ContinuousClock.now
        for url in urls { _ = try await sequential.downloadTask(with: DownloadRequest(url: url, destination: .caches)) }
        _ = try await completions(urls.count, of: sequential)
        pipelined.append((ContinuousClock.now - begun).seconds)
        await sequential.detach()
        try setAside(container.hostPath(for: .caches))
        aria.append(
            try timeTool(
                "/usr/bin/aria2c",
                [
                    "-q", "-i", scratch.appending("list.txt"), "-j", "8", "--file-allocation=none",
                    "--allow-overwrite=true", "-d", scratch.appending("aria-\(run)"),
                ]))
        try setAside(scratch.appending("aria-\(run)"))
    }
    print("## 2. \(options.small) files of 16 KiB queued on the daemon, 8 at once\n")
    print("| how | median time | files/s | runs (s) |")
    print("|---|---|---|---|")
    let rows = [
        ("sandboxd, downloadTasks(with:) (all at once)", daemon),
        ("sandboxd, one downloadTask(with:) after another", pipelined),
        ("DownloadSession in-process, 8 at once", local),
        ("aria2c -i list -j 8", aria),
    ]
    for (name, times) in rows {
        let time = median(times)
        let runs = times.map { String(format: "%.2f", $0) }.joined(separator: ", ")
        print(
            "| \(name) | \(String(format: "%.2f s", time)) | \(String(format: "%.0f", Double(urls.count) / time)) | \(runs) |"
        )
    }
    print(
        String(
            format: "\nsandboxd / aria2c: %.2f× (goal ≤ 1.0×); one after another: %.2f×; the in-process session: %.2f×",
            median(daemon) / median(aria), median(pipelined) / median(aria), median(local) / median(aria)))
    let ratios = zip(daemon, aria).map { $0 / $1 }.sorted()
    print("per run: \(ratios.map { String(format: "%.2f×", $0) }.joined(separator: ", ")); load \(loadAverage())")
    print(String(format: "(of sandboxd's time, submitting the tasks: %.2f s)\n", median(submitting)))

    // 3 and 4: a detached batch; the daemon's peak RSS; the queued events delivered on re-attach.
    let submitter = try await session("detached", receivesEvents: false)
    let pid = submitter.daemonPID
    _ = try await submitter.downloadTasks(with: urls.map { DownloadRequest(url: $0, destination: .caches) })
    let queuedRSS = residentBytes(of: pid, field: "VmRSS")
    while try await DaemonStatus.query(paths: paths).activeTasks > 0 { try await Task.sleep(for: .milliseconds(5)) }
    await submitter.detach()
    let peak = residentBytes(of: pid, field: "VmHWM")
    let queued = try await DaemonStatus.query(paths: paths).queuedEvents
    let start = ContinuousClock.now
    let again = try await session("detached")
    let delivered = try await completions(Int.max, of: again) { event in
        if case .didFinishEvents = event { return true }
        return false
    }
    let seconds = (ContinuousClock.now - start).seconds
    await again.detach()
    print("## 3. The daemon's memory with \(options.small) queued tasks\n")
    print(
        "RSS just after submitting them: \(mib(queuedRSS)); peak (VmHWM) over the batch and the whole run: \(mib(peak)) (goal < 64 MiB)\n"
    )
    print("## 4. Queued events delivered to a re-attaching app\n")
    print(
        "\(delivered - 1) events (\(queued) queued) and all-delivered in \(String(format: "%.3f s", seconds)) (attach included): \(String(format: "%.0f", Double(delivered - 1) / seconds)) events/s (goal ≥ 10,000/s)\n"
    )
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
