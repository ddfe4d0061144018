// Timing helpers the benchmarks share: peers run with posix_spawn, ours timed in-process, medians.
import Foundation

/// Runs a system tool with `posix_spawn` and `waitpid` (Foundation's `Process` adds up to 50 ms of
/// polling on Linux, which would flatter us), its output to /dev/null; returns its wall time in
/// seconds. A tool that cannot start or fails ends the benchmark: its numbers would mean nothing.
public func timeTool(_ executable: String, _ arguments: [String]) throws -> Double {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let start = ContinuousClock.now
    let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard spawned == 0 else { fatalError("cannot run \(executable): errno \(spawned)") }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let elapsed = ContinuousClock.now - start
    guard status == 0 else { fatalError("\(executable) \(arguments.prefix(8)) failed with status \(status)") }
    return elapsed.seconds
}

/// The wall time of `body`, in seconds.
public func time(_ body: () throws -> Void) rethrows -> Double {
    let start = ContinuousClock.now
    try body()
    return (ContinuousClock.now - start).seconds
}

extension Duration {
    /// The duration in seconds, as a `Double`.
    public var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// The median of `values` (the mean of the middle two for an even count).
public func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}
