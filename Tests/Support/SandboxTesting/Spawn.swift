import Glibc

/// `posix_spawn` with the child's standard streams opened on files, every other descriptor
/// closed, and a clean signal state (no signal blocked, every handler at its default) whatever
/// the spawning thread had.
enum Spawn {
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc module
    /// does not import: without it a child inherits every descriptor opened without `O_CLOEXEC`.
    private static let addCloseFrom: AddCloseFrom? =
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")  // RTLD_DEFAULT
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    static func start(
        _ path: String,
        arguments: [String],
        environment: [String],
        stdin: String,
        stdout: String,
        stderr: String
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, stdin, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, STDERR_FILENO + 1) }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attributes, &none)
        var all = sigset_t()
        sigfillset(&all)
        sigdelset(&all, SIGKILL)
        sigdelset(&all, SIGSTOP)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = arguments.map { strdup($0) }
        let envp = environment.map { strdup($0) }
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let status = (argv + [nil]).withUnsafeBufferPointer { argv in
            (envp + [nil]).withUnsafeBufferPointer { envp in
                guard let argv = argv.baseAddress, let envp = envp.baseAddress else { return EINVAL }
                return posix_spawn(&pid, path, &actions, &attributes, argv, envp)
            }
        }
        guard status == 0 else { throw TestFailure("cannot start '\(path)': \(String(cString: strerror(status)))") }
        return pid
    }
}
