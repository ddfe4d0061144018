import Glibc

/// The `sandbox-crash-harness` executable, built next to the test binary: found by walking up from
/// the directory of `/proc/self/exe`.
enum HarnessProcess {
    static let executableName = "sandbox-crash-harness"

    static let executablePath: String? = {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        var directory = String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        while let slash = directory.lastIndex(of: "/"), !directory.isEmpty {
            directory = String(directory[..<slash])
            let candidate = directory + "/" + executableName
            if access(candidate, X_OK) == 0 { return candidate }
        }
        return nil
    }()

    /// How a harness process ended.
    struct Exit: Equatable, CustomStringConvertible {
        var status: Int32?
        var signal: Int32?
        var description: String { signal.map { "killed by signal \($0)" } ?? "exit \(status ?? -1)" }
    }

    /// Starts the harness with `arguments`; standard output goes to `/dev/null` unless `output`
    /// names a file to receive it.
    static func spawn(_ arguments: [String], output: String = "/dev/null") throws -> pid_t {
        guard let executable = executablePath else { throw IOTestFailure("\(executableName) was not found near /proc/self/exe; build with --build-tests") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = ([executable] + arguments).map { strdup($0) }
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let status = (argv + [nil]).withUnsafeBufferPointer { pointer -> Int32 in
            guard let base = pointer.baseAddress else { return EINVAL }
            return posix_spawn(&pid, executable, &actions, nil, base, environ)
        }
        guard status == 0 else { throw IOTestFailure("posix_spawn: \(String(cString: strerror(status)))") }
        return pid
    }

    /// Waits for `pid` to end.
    static func wait(_ pid: pid_t) -> Exit {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let signal = status & 0x7F
        return signal == 0 ? Exit(status: (status >> 8) & 0xFF, signal: nil) : Exit(status: nil, signal: signal)
    }

    /// Runs the harness to its end.
    static func run(_ arguments: [String], output: String = "/dev/null") throws -> Exit {
        wait(try spawn(arguments, output: output))
    }
}

/// Monotonic time in microseconds.
func monotonicMicroseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1_000_000 + now.tv_nsec / 1000
}
