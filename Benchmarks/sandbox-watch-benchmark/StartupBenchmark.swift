// `--startup-folders N,…` (issue 31): the folder monitor's start-up on a tree of N folders against
// `inotifywait -m -r`, each in a process of its own started with posix_spawn: the time from the
// spawn to "all watches placed" (ours: the worker's `ready` line, printed when `FolderMonitor`'s
// initializer returns, which arms the whole tree; inotifywait: its "Watches established." line),
// and each process's peak RSS (`wait4`'s ru_maxrss). The tree: folders of 100 subfolders, two
// levels, in the container's Documents. Needs `fs.inotify.max_user_watches` above N: raised when
// lower and running as root (and said so), else the mode stops.
import BenchmarkSupport
import Foundation
import Glibc
import SandboxWatch

/// The worker side: `worker-startup HOME`: watches the container's Documents, prints `ready`, exits.
func startupWorker(home: String) throws {
    let container = try SandboxHome(location: home).container(for: AppIdentifier("com.example.watchbench"))
    let monitor = try FolderMonitor(watching: ContainerPath(constant: "Documents"), in: container.root)
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    // Stay until the benchmark has read the peak RSS and sends SIGTERM (which ends the process).
    while true { pause() }
    monitor.cancel()
}

/// Runs `arguments` with posix_spawn, its stdout (`onStdout`) or stderr in a pipe; returns the time
/// until a line starting with `line` was read, and the process's peak RSS then (VmHWM, in KiB); then
/// ends it with SIGTERM. Not `wait4`'s ru_maxrss: posix_spawn's vfork-like clone shares this
/// process's memory until the exec, and Linux carries that peak into the child's maxrss.
func spawnUntilLine(_ arguments: [String], _ line: String, onStdout: Bool) -> (seconds: Double, rssKiB: Int) {
    var pipeEnds: [Int32] = [0, 0]
    guard pipe(&pipeEnds) == 0 else { fatalError("pipe: errno \(errno)") }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], onStdout ? 1 : 2)
    posix_spawn_file_actions_addopen(&actions, onStdout ? 2 : 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
    posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
    let argv = arguments.map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var pid: pid_t = 0
    let start = ContinuousClock.now
    guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else {
        fatalError("cannot run \(arguments[0])")
    }
    close(pipeEnds[1])
    var text: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    var seconds = Double.nan
    // The benchmark's main thread, its own: a blocking read is fine here.
    while seconds.isNaN {
        let count = buffer.withUnsafeMutableBytes { read(pipeEnds[0], $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { break }
        text += buffer[0..<count]
        if String(decoding: text, as: UTF8.self).split(separator: "\n").contains(where: { $0.hasPrefix(line) }) {
            seconds = (ContinuousClock.now - start).seconds
        }
    }
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    let peak = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }?.split(separator: " ").dropFirst().first
    kill(pid, SIGTERM)
    close(pipeEnds[0])
    var exitStatus: Int32 = 0
    while waitpid(pid, &exitStatus, 0) < 0 && errno == EINTR {}
    guard !seconds.isNaN, let peak, let kiB = Int(peak) else {
        fatalError("\(arguments[0]) ended without '\(line)' or its VmHWM: status \(exitStatus)")
    }
    return (seconds, kiB)
}

/// Makes about `folders` folders (two levels of up to 100) in `documents`; returns how many.
func makeFolderTree(_ documents: String, folders: Int) throws -> Int {
    var made = 0
    var top = 0
    while made < folders {
        let parent = documents + "/d\(top)"
        guard mkdir(parent, 0o755) == 0 else { throw HostFiles.Failure(call: "mkdir", path: parent, code: errno) }
        made += 1
        for child in 0..<min(100, folders - made) {
            let path = parent + "/f\(child)"
            guard mkdir(path, 0o755) == 0 else { throw HostFiles.Failure(call: "mkdir", path: path, code: errno) }
            made += 1
        }
        top += 1
    }
    return made
}

/// The `--startup-folders` mode: prints one table row per size.
func startupBenchmark(sizes: [Int], runs: Int, directory: String) throws {
    guard let inotifywait = Inotifywait.executable else { fatalError("install inotify-tools (inotifywait)") }
    let limitPath = "/proc/sys/fs/inotify/max_user_watches"
    let limit =
        Int((try String(contentsOfFile: limitPath, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines))
        ?? 0
    let needed = (sizes.max() ?? 0) + 20_000
    if limit < needed {
        guard getuid() == 0 else { fatalError("\(limitPath) is \(limit): raise it to \(needed) (needs root)") }
        try Data("\(needed)\n".utf8).write(to: URL(fileURLWithPath: limitPath))
        progress("raised \(limitPath) from \(limit) to \(needed)")
    }
    let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
    print(
        "\n| folders | ours: spawn → ready (median) | inotifywait -m -r: spawn → established | ratio | each run's ratio | peak RSS ours / inotifywait |"
    )
    print("|---|---|---|---|---|---|")
    for size in sizes {
        let scratch = try Scratch(in: directory)
        defer { scratch.remove() }
        let folders = try makeFolderTree(scratch.documents, folders: size)
        var ours: [Double] = []
        var theirs: [Double] = []
        var rss = (ours: 0, theirs: 0)
        for run in 0..<runs {
            // Each side goes first every other run.
            for side in run % 2 == 0 ? [0, 1] : [1, 0] {
                if side == 0 {
                    let (seconds, peak) = spawnUntilLine(
                        [me, "worker-startup", scratch.directory + "/home"], "ready", onStdout: true)
                    ours.append(seconds)
                    rss.ours = max(rss.ours, peak)
                } else {
                    let (seconds, peak) = spawnUntilLine(
                        [inotifywait, "-m", "-r", scratch.documents], "Watches established", onStdout: false)
                    theirs.append(seconds)
                    rss.theirs = max(rss.theirs, peak)
                }
            }
        }
        let ratios = zip(ours, theirs).map { $0 / $1 }
        print(
            "| \(folders) | \(String(format: "%.3f s", median(ours))) | \(String(format: "%.3f s", median(theirs))) | **\(String(format: "%.2f", median(ratios)))** | \(ratios.map { String(format: "%.2f", $0) }.joined(separator: ", ")) | \(rss.ours / 1024) / \(rss.theirs / 1024) MiB |"
        )
    }
}
