// Measures `SandboxBackup` against restic (Debian's `restic`, which must be installed) backing up
// the same container to a local repository in the same run: a 1 GiB file plus 10,000 small files
// of 4 KiB (half text, half random: Container.swift), or with --sizes one container per count of
// small files in turn, each in its own folder removed after it (SizeRun.swift), and at the end one
// line per size with the goals' ratios: time, peak RSS, repository objects and bytes (SizeReport.swift).
// Both sides are encrypted (restic always is: ours gets --password-file too) and run as processes
// (ours is this executable re-run as a worker), so peak RSS (`wait4`'s ru_maxrss) compares like
// with like. Cases: the first backup (empty repositories), an incremental backup after 1 MiB
// changed in the middle of the large file and one small file changed, a restore. Not run by CI.
// `--compression` measures zstd per blob against the `zstd -3` CLI instead (CompressionBenchmark.swift).
// With --s3-latency, restore and check --read-data from the Ceph gateway through a 40 ms round
// trip instead, against rclone (S3Latency.swift).
//
//     swift run --package-path Benchmarks -c release sandbox-backup-benchmark [--big-mib N] [--files N] [--runs N] [--dir PATH]
//     … sandbox-backup-benchmark --big-mib 0 --sizes 10000,100000,1000000 --no-restore
//     swift run --package-path Benchmarks -c release sandbox-backup-benchmark --compression [--corpus-mib N] [--blob-kib N]
import ArgumentParser
import BenchmarkSupport
import Foundation
import Sandbox
import SandboxBackup

struct Configuration: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-backup-benchmark",
        abstract: "Backup, incremental backup and restore against restic, with medians, ratios and peak RSS.")

    @Option(name: .customLong("big-mib"), help: "The size of the large file, in MiB.") var bigMiB = 1024
    @Option(help: "How many small files (of 4 KiB).") var files = 10_000
    @Option(help: "Several counts of small files, one container each in turn, e.g. 10000,100000 (instead of --files).")
    var sizes: String?
    @Option(help: "How many times each case runs.") var runs = 3
    @Option(name: .customLong("dir"), help: "The folder everything is made in (one folder a size, removed after it).")
    var directory = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/var/tmp"
    @Flag(inversion: .prefixedNo, help: "Measure the restore too.") var restore = true
    @Flag(help: "Measure zstd per blob against the zstd -3 CLI instead (no restic).") var compression = false
    @Option(name: .customLong("corpus-mib"), help: "--compression: MiB of text and of random data.") var corpusMiB = 64
    @Option(name: .customLong("blob-kib"), help: "--compression: the blob size, in KiB.") var blobKiB = 1024
    @Flag(
        name: .customLong("s3-latency"),
        help: "Restore and check --read-data from the gateway at S3_ENDPOINT through delay-proxy.py, against rclone.")
    var s3Latency = false
    @Option(name: .customLong("delay-ms"), help: "With --s3-latency: the proxy's hold each way, in ms.") var delayMs =
        20
    @Option(help: "With --s3-latency: the request counts to measure (repeatable).") var parallel: [Int] = [1, 4, 8]
}

extension Configuration {
    /// The counts of small files to measure: `--sizes`, else `--files`.
    ///
    /// - Throws: `ValidationError` for a count that is not a number of at least 1.
    func fileCounts() throws -> [Int] {
        guard let sizes else { return [files] }
        return try sizes.split(separator: ",").map { text in
            guard let count = Int(text.trimmingCharacters(in: .whitespaces)), count > 0 else {
                throw ValidationError(
                    "--sizes takes counts of files separated by commas, e.g. 10000,100000: not '\(text)'")
            }
            return count
        }
    }
}

let app = "com.example.bench"

/// Runs `arguments` as a process (output to /dev/null); returns its wall time and peak RSS in KiB.
func spawn(_ arguments: [String], environment: [String: String] = [:]) -> (seconds: Double, rssKiB: Int) {
    for (name, value) in environment { setenv(name, value, 1) }
    defer { for name in environment.keys { unsetenv(name) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let start = ContinuousClock.now
    guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else {
        fatalError("cannot run \(arguments[0])")
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let elapsed = (ContinuousClock.now - start).seconds
    guard status == 0 else { fatalError("\(arguments.prefix(6)) failed with status \(status)") }
    return (elapsed, usage.ru_maxrss)
}

/// The worker side: `worker backup|restore HOME REPO PASSWORD-FILE [PARALLEL]` (REPO: a directory or
/// `s3://bucket/prefix`; PARALLEL: requests at once, else the storage's default), `worker check REPO
/// PASSWORD-FILE PARALLEL` (`--read-data`), or `worker setup HOME BIG-MIB FILES` to make the
/// benchmark's container for profiling by hand.
func worker(_ arguments: [String]) async throws {
    if arguments[0] == "setup", arguments.count == 4, let big = Int(arguments[2]), let files = Int(arguments[3]) {
        _ = try makeContainer(home: try SandboxHome(location: arguments[1]), bigMiB: big, files: files)
        return
    }
    if arguments[0] == "check", arguments.count == 4, let parallel = Int(arguments[3]) {
        let password = Array(try String(contentsOfFile: arguments[2], encoding: .utf8).utf8)
        let storage = try await RepositoryAddress(arguments[1]).storage(creating: false, concurrency: parallel)
        let repository = try await Repository.open(storage, password: password)
        let report = try await Checker.check(repository, readingData: true)
        await repository.close()
        guard report.isHealthy else { fatalError("check found problems: \(report.problems)") }
        return
    }
    let home = try SandboxHome(location: arguments[1])
    let password = Array(try String(contentsOfFile: arguments[3], encoding: .utf8).utf8)
    let storage = try await RepositoryAddress(arguments[2]).storage(  // a directory or s3://…
        creating: true, concurrency: arguments.count > 4 ? Int(arguments[4]) : nil)
    let repository = try await Repository.openOrCreate(storage, password: password)
    let identifier = try AppIdentifier(app)
    switch arguments[0] {
    case "backup": _ = try await Backup.run(apps: [identifier], from: home, to: repository)
    case "restore":
        _ = try await Restore.run(
            app: identifier, snapshot: try await repository.snapshot(matching: nil), from: repository, into: home)
    default: fatalError("unknown worker command \(arguments[0])")
    }
    await repository.close()
}

func run() async throws {
    if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "worker" {
        return try await worker(Array(CommandLine.arguments.dropFirst(2)))
    }
    let configuration = Configuration.parseOrExit()
    if configuration.s3Latency { return try S3LatencyBenchmark(configuration: configuration).run() }
    if configuration.compression {
        var template = Array("\(configuration.directory)/sandbox-backup-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            fatalError("cannot create a directory in \(configuration.directory)")
        }
        let base = String(cString: made)
        defer { _ = try? timeTool("/bin/rm", ["-rf", base]) }  // teardown only
        return try compressionBenchmark(
            corpusMiB: configuration.corpusMiB, blobKiB: configuration.blobKiB, runs: configuration.runs, base: base)
    }
    let restic = "/usr/bin/restic"
    guard FileManager.default.isExecutableFile(atPath: restic) else {
        fatalError("install restic (apt-get install restic)")
    }
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    let sizes = try configuration.fileCounts()
    print("# sandbox-backup-benchmark: \(CommandLine.arguments.dropFirst().joined(separator: " "))")
    var results: [SizeResult] = []
    for files in sizes {
        let result = try SizeRun(configuration: configuration, files: files, me: me, restic: restic).run()
        print(result.tables + "\n")
        fflush(nil)  // all streams: the log shows each size as it ends
        results.append(result)
    }
    print(SizeResult.curveHeader)
    for result in results { print(result.curveLine) }
}

do {
    try await run()
} catch {
    fatalError("\(error)")
}
