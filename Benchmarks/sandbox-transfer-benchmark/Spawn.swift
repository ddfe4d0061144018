import Foundation
import Glibc

/// What one run of a program cost.
struct Measurement {
    var seconds: Double
    /// Peak resident memory (`ru_maxrss`), in bytes.
    var peakBytes: Int
    var status: Int32
    /// User plus system CPU time (`wait4`'s rusage), in seconds.
    var cpuSeconds: Double = 0
}

/// Runs `arguments` (the first is the program, found on PATH) with `environment` added, output to
/// /dev/null, and measures wall time and peak memory with `wait4`.
func measure(_ arguments: [String], environment: [String: String] = [:]) throws -> Measurement {
    guard let program = arguments.first.flatMap(findExecutable) else {
        throw BenchmarkError("\(arguments.first ?? "?") is not installed")
    }
    var merged = ProcessInfo.processInfo.environment
    for (key, value) in environment { merged[key] = value }
    let argv = ([program] + arguments.dropFirst()).map { strdup($0) } + [nil]
    let envp = merged.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let start = ContinuousClock.now
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, program, &actions, nil, argv, envp)
    guard spawned == 0 else { throw BenchmarkError("posix_spawn \(program): \(spawned)") }
    // Peak memory from /proc/PID/status's VmHWM, sampled every 2 ms: wait4's ru_maxrss would include
    // this process's own size, which a spawned child inherits as its high-water mark until exec.
    var status: Int32 = 0
    var peak = 0
    var usage = rusage()
    while true {
        peak = max(peak, highWaterMark(of: pid))
        let done = wait4(pid, &status, WNOHANG, &usage)
        if done == pid { break }
        if done < 0 && errno != EINTR { throw BenchmarkError("waitpid: errno \(errno)") }
        usleep(2_000)
    }
    let elapsed = ContinuousClock.now - start
    let exitStatus = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
    return Measurement(seconds: elapsed.seconds, peakBytes: peak, status: exitStatus, cpuSeconds: usage.cpuSeconds)
}

extension rusage {
    /// User plus system time, in seconds.
    var cpuSeconds: Double {
        Double(ru_utime.tv_sec + ru_stime.tv_sec) + Double(ru_utime.tv_usec + ru_stime.tv_usec) / 1e6
    }

    /// This process's use so far (every thread).
    static func ofSelf() -> rusage {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage
    }
}

/// `VmHWM` of a running process, in bytes (0 once it has exited).
func highWaterMark(of pid: pid_t) -> Int {
    guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),  // gone: nothing to read
        let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
}

func findExecutable(_ name: String) -> String? {
    if name.contains("/") { return FileManager.default.isExecutableFile(atPath: name) ? name : nil }
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first(where: FileManager.default.isExecutableFile)
}

struct BenchmarkError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

func median(_ values: [Double]) -> Double {
    guard !values.isEmpty else { return .nan }
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Writes `count` pseudo-random bytes to `path` in 4 MiB pieces.
func writeRandomFile(_ path: String, count: Int) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil) else {
        throw BenchmarkError("cannot create \(path)")
    }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    defer { try? handle.close() }  // benchmark scaffolding
    var written = 0
    var seed: UInt64 = 1
    while written < count {
        let piece = min(4 << 20, count - written)
        var bytes = [UInt8](repeating: 0, count: piece)
        bytes.withUnsafeMutableBytes { buffer in
            let words = buffer.bindMemory(to: UInt64.self)
            for index in words.indices {
                seed ^= seed << 13
                seed ^= seed >> 7
                seed ^= seed << 17
                words[index] = seed
            }
        }
        try handle.write(contentsOf: bytes)
        written += piece
    }
}
