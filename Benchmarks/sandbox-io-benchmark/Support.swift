import ArgumentParser
import Foundation

/// The benchmark's options: `--size-mib`, `--stream-mib`, `--small-files`, `--random-reads`,
/// `--runs`, `--dir`, `--only`.
struct Configuration: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-io-benchmark",
        abstract: "The I/O engine against dd, Foundation and fio (or threads doing pread), throughput ratios."
    )

    @Option(name: .customLong("size-mib"), help: "The size of the sequential files, in MiB.") var sizeMiB = 1_024
    @Option(name: .customLong("stream-mib"), help: "The size of the streamed file for peak memory, in MiB.")
    var streamMiB = 4_096
    @Option(help: "How many 4 KiB files the small-file case writes.") var smallFiles = 10_000
    @Option(help: "How many random 4 KiB reads each depth makes.") var randomReads = 256_000
    @Option(help: "How many times each case runs.") var runs = 5
    @Option(name: .customLong("dir"), help: "The folder the files are made in.") var directory = "/var/tmp"
    @Option(
        name: .customLong("only"),
        help: "Run only these groups, separated by commas: read, write, small, random, peak.",
        transform: { Set($0.split(separator: ",").map(String.init)) }
    )
    var only: Set<String> = []

    func wants(_ group: String) -> Bool { only.isEmpty || only.contains(group) }
}

/// Runs a tool with `posix_spawn` (output to /dev/null) and returns its wall time in seconds.
func timeTool(_ executable: String, _ arguments: [String]) -> Double {
    let start = ContinuousClock.now
    let status = spawnAndWait(executable, arguments, output: "/dev/null")
    guard status == 0 else { fatalError("\(executable) \(arguments) failed with status \(status)") }
    return (ContinuousClock.now - start).seconds
}

/// Runs a tool and returns its exit status; its standard output goes to `output`.
@discardableResult
func spawnAndWait(_ executable: String, _ arguments: [String], output: String) -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let spawned = posix_spawnp(&pid, executable, &actions, nil, argv, environ)
    guard spawned == 0 else { return -1 }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    return status
}

func measure(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return (ContinuousClock.now - start).seconds
}

func measure(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    return (ContinuousClock.now - start).seconds
}

/// CPU seconds (user + system) used so far by this process, or by its waited-for children.
func cpuSeconds(children: Bool = false) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t((children ? RUSAGE_CHILDREN : RUSAGE_SELF).rawValue), &usage)
    let seconds = { (time: timeval) in Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

/// One line of the report: our median against the baseline's, as a throughput ratio.
func report(_ name: String, ours: [Double], baseline: [Double], baselineName: String, unit: (Double) -> String) {
    let ratio = median(baseline) / median(ours)
    let line =
        "\(name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(unit(median(ours)).padding(toLength: 14, withPad: " ", startingAt: 0)) vs \(baselineName.padding(toLength: 26, withPad: " ", startingAt: 0)) \(unit(median(baseline)).padding(toLength: 14, withPad: " ", startingAt: 0)) × \(String(format: "%.2f", ratio))"
    print(line)
}

func gibPerSecond(bytes: Int) -> (Double) -> String {
    { seconds in String(format: "%.2f GiB/s", Double(bytes) / seconds / Double(1 << 30)) }
}

/// Writes `megabytes` MiB of non-zero bytes to `path` with `dd` (from /dev/urandom would be slow;
/// a repeated pattern is as good for the page cache).
func makeFile(_ path: String, megabytes: Int) {
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    for index in chunk.indices { chunk[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 13) }
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    precondition(fd >= 0, "cannot create \(path)")
    defer { close(fd) }
    for _ in 0..<megabytes {
        chunk.withUnsafeBytes { buffer in
            var done = 0
            while done < buffer.count {
                let written = write(fd, buffer.baseAddress.map { $0 + done }, buffer.count - done)
                precondition(written > 0, "write failed: errno \(errno)")
                done += written
            }
        }
    }
}

/// This process's peak resident memory (VmHWM), in bytes.
func peakResidentBytes() -> Int {
    // Without /proc (not Linux) the figure is 0, which the report shows as such.
    let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        let digits = line.filter(\.isNumber)
        return (Int(digits) ?? 0) * 1024
    }
    return 0
}
