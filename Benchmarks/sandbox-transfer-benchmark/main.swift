// Measures SandboxTransfer against the goals of issue 5, with curl and aria2c as peers in the same
// run against the same local nginx, and prints a markdown table (medians over the runs). Not run by CI.
//
//     apt-get install -y nginx curl aria2
//     swift build -c release --product sandbox && swift run -c release sandbox-transfer-benchmark [--mib N] [--runs N] [--small N] [--only large|small|resume]
//
// 1. One large file (1 GiB by default) from nginx on loopback: `sandbox download` (the CLI, a process
//    like its peers) against `curl -o` and `aria2c`: wall time, throughput, peak memory (VmHWM, sampled).
// 2. N small files (1,000 × 16 KiB) with a concurrency of 8: one DownloadSession (in this process)
//    against `aria2c -i list -j 8` and `curl --parallel --parallel-max 8`.
// 3. Resume of a half-done large download: cancelled with resume data past half, resumed; the bytes
//    nginx sent for the resumed request, from its access log, against the remaining half.
import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import Sandbox
import SandboxTransfer
import SandboxTransferTesting

struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-transfer-benchmark",
        abstract: "Downloads from a local nginx against curl and aria2c: one large file, many small ones, a resume."
    )

    @Option(name: .customLong("mib"), help: "The size of the large file, in MiB.") var mebibytes = 1024
    @Option(help: "How many times each part runs.") var runs = 3
    @Option(help: "How many 16 KiB files the small-file part downloads.") var small = 1000
    /// `large`, `small` or `resume`: run only that part.
    @Option(help: "Run only this part: large, small or resume.") var only: String?
    /// `--no-peers`: the small-file part runs no peer processes (to profile it without them).
    @Flag(inversion: .prefixedNo, help: "Run curl and aria2c in the small-file part.") var peers = true
    /// `--no-floor`: the small-file part does not run async-http-client alone (to profile the session).
    @Flag(inversion: .prefixedNo, help: "Run async-http-client alone in the small-file part.") var floor = true
    /// `--nio-executor`: Swift concurrency's global executor is SwiftNIO's event loops (no
    /// cooperative pool of its own), as a process can choose at start.
    @Flag(help: "Run Swift tasks on SwiftNIO's event loops instead of the cooperative pool.") var nioExecutor = false
}

let options = Options.parseOrExit()
if options.nioExecutor, !NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() {
    throw BenchmarkError("SwiftNIO could not become the global executor")
}
let size = options.mebibytes << 20
let nginx = try await NginxServer.start()
let scratch = try ScratchDirectory.make(prefix: "sandbox-transfer-bench").path
defer { try? FileManager.default.removeItem(atPath: scratch) }  // benchmark scaffolding
try writeRandomFile(nginx.documentRoot + "/large.bin", count: size)
let largeURL = nginx.url("/files/large.bin")
let app = "com.example.benchmark"
let sandboxBinary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
    "sandbox"
).path
func address(_ text: String) throws -> URL {
    guard let url = URL(string: text) else { throw BenchmarkError("bad URL \(text)") }
    return url
}
func mibps(_ seconds: Double) -> String { String(format: "%.0f MiB/s", Double(size) / 1_048_576 / seconds) }
func mib(_ bytes: Double) -> String { String(format: "%.1f MiB", bytes / 1_048_576) }

print(
    "# sandbox-transfer-benchmark: \(options.mebibytes) MiB file, \(options.runs) runs, \(options.small) small files\n")

func runs(_ part: String) -> Bool { options.only == nil || options.only == part }

// 1. The large file.
if runs("large") {
    var results: [(name: String, times: [Double], peaks: [Double])] = []
    let peers: [(String, (Int) -> [String], [String: String])] = [
        ("sandbox download", { _ in [sandboxBinary, "download", app, largeURL] }, ["SANDBOX_HOME": scratch + "/home"]),
        ("curl -o", { run in ["curl", "-s", "-o", scratch + "/curl-\(run).bin", largeURL] }, [:]),
        (
            "aria2c",
            { run in
                [
                    "aria2c", "-q", "--file-allocation=none", "--allow-overwrite=true", "-d", scratch, "-o",
                    "aria-\(run).bin", largeURL,
                ]
            }, [:]
        ),
    ]
    _ = try SandboxHome(location: scratch + "/home").createContainer(for: AppIdentifier(app))
    let caches = try SandboxHome(location: scratch + "/home").container(for: AppIdentifier(app)).hostPath(for: .caches)
    for (name, arguments, environment) in peers {
        var times: [Double] = []
        var peaks: [Double] = []
        for run in 0..<options.runs {
            do {
                let result = try measure(arguments(run), environment: environment)
                guard result.status == 0 else { throw BenchmarkError("exit status \(result.status)") }
                times.append(result.seconds)
                peaks.append(Double(result.peakBytes))
            } catch {
                print("\(name): \(error)")
                break
            }
            for path in [caches + "/large.bin", scratch + "/curl-\(run).bin", scratch + "/aria-\(run).bin"] {
                try? FileManager.default.removeItem(atPath: path)
            }  // next run starts clean
        }
        results.append((name, times, peaks))
    }
    let curlTime = median(results[1].times)
    let ariaTime = median(results[2].times)
    print("## 1. One \(options.mebibytes) MiB file from nginx on loopback\n")
    print("| tool | median time | throughput | vs curl | vs aria2c | peak memory | runs (s) |")
    print("|---|---|---|---|---|---|---|")
    for (name, times, peaks) in results {
        let time = median(times)
        let runs = times.map { String(format: "%.2f", $0) }.joined(separator: ", ")
        print(
            "| \(name) | \(String(format: "%.2f s", time)) | \(mibps(time)) | \(String(format: "%.2f×", curlTime / time)) | \(String(format: "%.2f×", ariaTime / time)) | \(mib(median(peaks))) | \(runs) |"
        )
    }
    print("\n(throughput ratios above 1 mean faster than the peer; goal: ≥ 1.0× curl, ≥ aria2c, < 64 MiB)\n")
}

// 2. Small files.
if runs("small") {
    let smallSize = 16 * 1024
    for index in 0..<options.small { try writeRandomFile(nginx.documentRoot + "/s\(index).bin", count: smallSize) }
    let urls = (0..<options.small).map { nginx.url("/files/s\($0).bin") }
    /// Wall time and CPU time (every thread of this process) of one session downloading them all.
    func timeSession() async throws -> (Double, Double) {
        let home = try SandboxHome(location: scratch + "/small-home")
        let container = try home.createContainer(
            for: AppIdentifier("com.example.small\(Int.random(in: 0..<1_000_000))"))
        let configuration = DownloadSession.Configuration(
            maximumConcurrentTasks: 8, maximumConcurrentTasksPerHost: 8, checkpointInterval: .seconds(60))
        let session = try DownloadSession(identifier: "bench", container: container, configuration: configuration)
        let start = ContinuousClock.now
        let cpuStart = rusage.ofSelf().cpuSeconds
        let tasks = try urls.map { url in
            try session.downloadTask(with: DownloadRequest(url: try address(url), destination: .caches))
        }
        for task in tasks { task.resume() }
        for task in tasks { _ = try await task.result().get() }
        return ((ContinuousClock.now - start).seconds, rusage.ofSelf().cpuSeconds - cpuStart)
    }
    try urls.joined(separator: "\n").write(toFile: scratch + "/list.txt", atomically: true, encoding: .utf8)
    // Each run of each tool writes into a folder of its own, and nothing is deleted until the end:
    // on this ext4 (no journal) every file created skips the inodes freed in the last minute or
    // more (`recently_deleted`, a read of their inode table block each), so deleting one run's
    // files made the next tool's creations several times slower, whichever it was.
    for run in 0..<options.runs {
        var curlConfig = ""
        for (index, url) in urls.enumerated() {
            curlConfig += "url = \"\(url)\"\noutput = \"\(scratch)/curl-small-\(run)/s\(index).bin\"\n"
        }
        try curlConfig.write(toFile: scratch + "/curl-\(run).txt", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(
            atPath: scratch + "/curl-small-\(run)", withIntermediateDirectories: true)
    }
    // Wall and CPU seconds of each run, per tool.
    var smallRows: [(name: String, times: [Double], cpu: [Double])] = [
        ("DownloadSession (8 at once)", [], []),
        ("async-http-client alone, bodies written to files (the floor under the session)", [], []),
        ("aria2c -i list -j 8", [], []),
        ("curl --parallel --parallel-max 8", [], []),
    ]
    for run in 0..<options.runs {
        let (time, cpu) = try await timeSession()
        smallRows[0].times.append(time)
        smallRows[0].cpu.append(cpu)
        if options.floor {
            let floorFolder = scratch + "/client-small-\(run)"
            try FileManager.default.createDirectory(atPath: floorFolder, withIntermediateDirectories: true)
            let floorStart = ContinuousClock.now
            let floorCPU = rusage.ofSelf().cpuSeconds
            try await downloadWithClientAlone(urls, of: smallSize, into: floorFolder, concurrency: 8)
            smallRows[1].times.append((ContinuousClock.now - floorStart).seconds)
            smallRows[1].cpu.append(rusage.ofSelf().cpuSeconds - floorCPU)
        }
        guard options.peers else { continue }
        // `--auto-save-interval=0`: no `.aria2` control file per download, created then deleted (it
        // was as slow as the downloads, and its deletions slowed every tool's creations after it).
        let aria = try measure([
            "aria2c", "-q", "-i", scratch + "/list.txt", "-j", "8", "--file-allocation=none", "--allow-overwrite=true",
            "--auto-save-interval=0", "-d", scratch + "/aria-small-\(run)",
        ])
        if aria.status == 0 {
            smallRows[2].times.append(aria.seconds)
            smallRows[2].cpu.append(aria.cpuSeconds)
        }
        let curl = try measure(["curl", "-s", "--parallel", "--parallel-max", "8", "-K", scratch + "/curl-\(run).txt"])
        if curl.status == 0 {
            smallRows[3].times.append(curl.seconds)
            smallRows[3].cpu.append(curl.cpuSeconds)
        }
    }
    let ariaSmall = median(smallRows[2].times)
    let curlSmall = median(smallRows[3].times)
    print("## 2. \(options.small) files of 16 KiB, concurrency 8\n")
    print("| tool | median time | files/s | time / curl's | vs aria2c | CPU (user + system) | runs (s) |")
    print("|---|---|---|---|---|---|---|")
    for (name, times, cpu) in smallRows {
        let time = median(times)
        let runs = times.map { String(format: "%.2f", $0) }.joined(separator: ", ")
        print(
            "| \(name) | \(String(format: "%.2f s", time)) | \(String(format: "%.0f", Double(options.small) / time)) | \(String(format: "%.2f×", time / curlSmall)) | \(String(format: "%.2f×", ariaSmall / time)) | \(String(format: "%.3f s", median(cpu))) | \(runs) |"
        )
    }
    print(
        "\n(goal: time / curl's ≤ 1.0; CPU is the whole process's: ours includes the session's HTTP client threads)\n")

}

// 3. Resume of a half-done download.
if runs("resume") {
    let resumeHome = try SandboxHome(location: scratch + "/resume-home")
    let resumeContainer = try resumeHome.createContainer(for: AppIdentifier("com.example.resume"))
    var rateLimited = DownloadSession.Configuration.standard
    rateLimited.rateLimit = Int64(max(size / 2, 1))  // about two seconds for the whole file: half is reached after ~1 s
    let session = try DownloadSession(identifier: "resume", container: resumeContainer, configuration: rateLimited)
    let first = try session.downloadTask(with: DownloadRequest(url: try address(largeURL), destination: .caches))
    first.resume()
    while first.progress.totalBytesWritten < Int64(size / 2) { try await Task.sleep(for: .milliseconds(5)) }
    guard let resumeData = await first.cancelByProducingResumeData() else { fatalError("nginx gave no resume data") }
    let offset =
        try resumeContainer.root.fileSize(
            at: DownloadSession.folder.appending("resume").appending(resumeData.partialFile.name)) ?? 0
    let second = try session.downloadTask(withResumeData: resumeData)
    second.resume()
    let outcome = try await second.result().get()
    await nginx.stop()
    let resumedBytes = nginx.accessLog().filter { $0.uri == "/files/large.bin" && $0.status == 206 }.reduce(0) {
        $0 + $1.bytesSent
    }
    print("\n## 3. Resume of a half-done \(options.mebibytes) MiB download\n")
    print("| paused at | remaining | bytes nginx sent for the resume | ratio | final size |")
    print("|---|---|---|---|---|")
    print(
        "| \(mib(Double(offset))) | \(mib(Double(size) - Double(offset))) | \(mib(Double(resumedBytes))) | \(String(format: "%.4f", Double(resumedBytes) / (Double(size) - Double(offset)))) | \(mib(Double(outcome.byteCount))) |"
    )
}

await nginx.stopAndRemoveFiles()
