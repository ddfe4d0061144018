import Foundation
import Glibc
import Synchronization

/// Starts `sandboxd`: found in `SANDBOXD_PATH`, else beside the running executable (where
/// `swift build` and installs put both).
package enum DaemonExecutable {
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34 and later), which the Glibc module
    /// does not import: without it the daemon would inherit the app's descriptors (its sockets,
    /// its session locks) for as long as it runs.
    private static let addCloseFrom: AddCloseFrom? =
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")  // RTLD_DEFAULT
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }

    /// The daemon's path.
    ///
    /// - Throws: ``TransferError/Code/daemonUnavailable`` when there is no executable there.
    package static func path(environment: [String: String]) throws(TransferError) -> String {
        let path: String
        if let explicit = environment["SANDBOXD_PATH"], !explicit.isEmpty {
            path = explicit
        } else {
            let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
            path = exe.deletingLastPathComponent().appendingPathComponent("sandboxd").path
        }
        guard FileManager.default.isExecutableFile(atPath: path) else {
            throw TransferError(
                .daemonUnavailable,
                "No sandboxd executable at '\(path)': install it beside the app or set SANDBOXD_PATH.", path: path)
        }
        return path
    }

    /// Starts the daemon for `paths` with standard input and output on `/dev/null` (it writes its
    /// own log), no descriptor of this process, and a clean signal state. A thread of its own
    /// reaps it when it exits, so it never lingers as a zombie of the app.
    ///
    /// - Returns: its process identifier and whether it has exited (checked while waiting for it).
    /// - Throws: ``TransferError/Code/daemonUnavailable`` when it cannot be started.
    package static func start(
        _ path: String, paths: DaemonPaths, environment: [String: String]
    ) throws(TransferError) -> (pid: pid_t, exit: ExitFlag) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        if let closeFrom = addCloseFrom { _ = closeFrom(&actions, STDERR_FILENO + 1) }
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
        let arguments = [path, "--home", paths.home, "--runtime-directory", paths.runtimeDirectory, "--detach"]
        let argv = arguments.map { strdup($0) }
        let envp = environment.map { strdup("\($0.key)=\($0.value)") }
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let status = (argv + [nil]).withUnsafeBufferPointer { argv in
            (envp + [nil]).withUnsafeBufferPointer { envp in
                guard let argv = argv.baseAddress, let envp = envp.baseAddress else { return EINVAL }
                return posix_spawn(&pid, path, &actions, &attributes, argv, envp)
            }
        }
        guard status == 0 else {
            throw TransferError(
                .daemonUnavailable, "Could not start sandboxd '\(path)': \(String(cString: strerror(status))).",
                path: path)
        }
        let exit = ExitFlag()
        let reaper = Thread { [pid] in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            exit.exited.withLock { $0 = true }
        }
        reaper.start()
        return (pid, exit)
    }

    /// Set once the started daemon has exited.
    package final class ExitFlag: Sendable {
        package let exited = Mutex(false)
        package var hasExited: Bool { exited.withLock { $0 } }
    }
}
