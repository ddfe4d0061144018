// Measures `SandboxBackup` against restic (Debian's `restic`, which must be installed) backing up
// the same container to a local repository in the same run: a 1 GiB file plus 10,000 small files.
// Both sides are encrypted (restic always is: ours gets --password-file too) and run as processes
// (ours is this executable re-run as a worker), so peak RSS (`wait4`'s ru_maxrss) compares like
// with like. Cases: the first backup (empty repositories), an incremental backup after 1 MiB
// changed in the middle of the large file and one small file changed, a restore. Not run by CI.
// `--compression` measures zstd per blob against the `zstd -3` CLI instead (CompressionBenchmark.swift).
// With --s3-latency, restore and check --read-data from the Ceph gateway through a 40 ms round
// trip instead, against rclone (S3Latency.swift).
//
//     swift run --package-path Benchmarks -c release sandbox-backup-benchmark [--big-mib N] [--files N] [--runs N] [--dir PATH]
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
    @Option(help: "How many small files.") var files = 10_000
    @Option(help: "How many times each case runs.") var runs = 3
    @Option(name: .customLong("dir"), help: "The folder everything is made in.") var directory = "/var/tmp"
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

/// Writes `size` bytes that do not repeat (so nothing deduplicates within the file).
func writeLarge(_ path: String, size: Int) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil) else { fatalError("cannot create \(path)") }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var block = [UInt64](repeating: 0, count: (4 << 20) / 8)
    for _ in 0..<(size / (4 << 20)) {
        for index in block.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            block[index] = state ^ (state >> 29)
        }
        try handle.write(contentsOf: block.withUnsafeBytes { Data($0) })
    }
    try handle.close()
}

/// Makes the app's container on `home`: one large file and `files` small ones in folders of 100.
///
/// - Returns: the container's `Documents` folder.
func makeContainer(home: SandboxHome, bigMiB: Int, files: Int) throws -> String {
    let container = try home.createContainer(for: try AppIdentifier(app))
    let documents = container.hostPath(for: .documents)
    try writeLarge(documents + "/large.bin", size: bigMiB << 20)
    for index in 0..<files {
        let folder = documents + "/small/\(index / 100)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data("small file \(index) \(String(repeating: "x", count: index % 2000))\n".utf8).write(
            to: URL(fileURLWithPath: folder + "/f\(index).txt"))
    }
    return documents
}

func run() async throws {
    if CommandLine.arguments.count > 1 && CommandLine.arguments[1] == "worker" {
        return try await worker(Array(CommandLine.arguments.dropFirst(2)))
    }
    let configuration = Configuration.parseOrExit()
    if configuration.s3Latency { return try S3LatencyBenchmark(configuration: configuration).run() }
    var template = Array("\(configuration.directory)/sandbox-backup-bench-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot create a directory in \(configuration.directory)") }
    let base = String(cString: made)
    defer { _ = try? timeTool("/bin/rm", ["-rf", base]) }  // teardown only
    if configuration.compression {
        return try compressionBenchmark(
            corpusMiB: configuration.corpusMiB, blobKiB: configuration.blobKiB, runs: configuration.runs, base: base)
    }
    let restic = "/usr/bin/restic"
    guard FileManager.default.isExecutableFile(atPath: restic) else {
        fatalError("install restic (apt-get install restic)")
    }
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    print(
        "# sandbox-backup-benchmark: 1 × \(configuration.bigMiB) MiB + \(configuration.files) small files, \(configuration.runs) runs, in \(base)"
    )

    let home = try SandboxHome(location: base + "/home")
    let documents = try makeContainer(home: home, bigMiB: configuration.bigMiB, files: configuration.files)
    let passwordFile = base + "/password"
    try Data("benchmark password".utf8).write(to: URL(fileURLWithPath: passwordFile))
    let ours = base + "/ours-repo"
    let theirs = base + "/restic-repo"
    let resticEnvironment = ["RESTIC_PASSWORD_FILE": passwordFile, "RESTIC_REPOSITORY": theirs]
    let bytes = (configuration.bigMiB << 20) + configuration.files * 1000
    var rows: [Comparison] = []
    var peaks: [String: (Int, Int)] = [:]

    /// Runs the worker's `command` ("backup" or "restore"), its peak kept under `label`.
    func oursRun(_ command: String, _ label: String) -> Double {
        let (seconds, rss) = spawn([me, "worker", command, home.location, ours, passwordFile])
        peaks[label, default: (0, 0)].0 = max(peaks[label, default: (0, 0)].0, rss)
        return seconds
    }
    func theirsRun(_ label: String, _ arguments: [String]) -> Double {
        let (seconds, rss) = spawn([restic] + arguments + ["-q"], environment: resticEnvironment)
        peaks[label, default: (0, 0)].1 = max(peaks[label, default: (0, 0)].1, rss)
        return seconds
    }
    func freshRepositories() throws {
        _ = try timeTool("/bin/rm", ["-rf", ours, theirs])
        _ = spawn([restic, "init", "-q"], environment: resticEnvironment)
    }

    /// Runs `prepare` (untimed), then ours and theirs, each going first every other run.
    func measure(
        _ row: inout Comparison, prepare: (Int) throws -> Void, ours: () -> Double, theirs: () -> Double
    )
        rethrows
    {
        for run in 0..<configuration.runs {
            try prepare(run)
            if run % 2 == 1 { row.theirs.append(theirs()) }
            row.ours.append(ours())
            if run % 2 == 0 { row.theirs.append(theirs()) }
        }
        rows.append(row)
    }

    var first = Comparison(name: "first backup", peer: "restic backup", bytes: bytes)
    try measure(
        &first, prepare: { _ in try freshRepositories() }, ours: { oursRun("backup", "first backup") },
        theirs: { theirsRun("first backup", ["backup", documents]) })

    // What the first backup left in each repository (after the last run's fresh repositories).
    let objects = (ours: repositoryObjects(ours), theirs: repositoryObjects(theirs))

    var incremental = Comparison(name: "incremental (1 MiB + 1 file changed)", peer: "restic backup", bytes: nil)
    try measure(
        &incremental,
        prepare: { run in
            let handle = try FileHandle(forUpdating: URL(fileURLWithPath: documents + "/large.bin"))
            try handle.seek(toOffset: UInt64(configuration.bigMiB << 19))
            try handle.write(contentsOf: Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ run &* 13) }))
            try handle.close()
            try Data("changed \(run)".utf8).write(to: URL(fileURLWithPath: documents + "/small/0/f0.txt"))
        }, ours: { oursRun("backup", "incremental") }, theirs: { theirsRun("incremental", ["backup", documents]) })

    let target = base + "/restic-target"
    var restore = Comparison(name: "restore", peer: "restic restore", bytes: bytes)
    try measure(
        &restore, prepare: { _ in _ = try timeTool("/bin/rm", ["-rf", target]) },
        ours: { oursRun("restore", "restore") },
        theirs: { theirsRun("restore", ["restore", "latest", "--target", target]) })

    print(Comparison.header)
    for row in rows { print(row.line) }
    print("\n| after the first backup | ours | restic |\n|---|---|---|")
    print("| objects (files in the repository) | \(objects.ours.count) | \(objects.theirs.count) |")
    print("| bytes | \(objects.ours.bytes >> 20) MiB | \(objects.theirs.bytes >> 20) MiB |")
    print("\n| peak RSS | ours | restic |\n|---|---|---|")
    for (name, (mine, theirs)) in peaks.sorted(by: { $0.key < $1.key }) {
        print("| \(name) | \(mine / 1024) MiB | \(theirs / 1024) MiB |")
    }
}

/// How many files the repository at `path` holds, and their bytes.
func repositoryObjects(_ path: String) -> (count: Int, bytes: Int64) {
    var count = 0
    var bytes: Int64 = 0
    let enumerator = FileManager.default.enumerator(atPath: path)
    while let relative = enumerator?.nextObject() as? String {
        guard let attributes = enumerator?.fileAttributes, attributes[.type] as? FileAttributeType == .typeRegular
        else { continue }
        count += 1
        bytes += (attributes[.size] as? NSNumber)?.int64Value ?? 0
        _ = relative
    }
    return (count, bytes)
}

do {
    try await run()
} catch {
    fatalError("\(error)")
}
