import Foundation
import Glibc
import SandboxCore
import Synchronization

/// A process started apart from its parent: standard streams on `/dev/null`, none of the parent's
/// other descriptors (its sockets and locks), a clean signal state, optionally another working
/// directory; a thread of its own reaps it, so it never lingers as a zombie. `sandboxd` is started
/// this way.
package final class DetachedProcess: Sendable {
    private typealias AddCloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    private typealias AddChdir =
        @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, UnsafePointer<CChar>)
        -> Int32

    /// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34) and `…_addchdir_np` (2.29), which
    /// the Glibc module does not import.
    private static let addCloseFrom: AddCloseFrom? =
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np")  // RTLD_DEFAULT
        .map { unsafeBitCast($0, to: AddCloseFrom.self) }
    private static let addChdir: AddChdir? =
        dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np")
        .map { unsafeBitCast($0, to: AddChdir.self) }

    /// The process identifier.
    package let pid: pid_t
    private let exited = Mutex(false)

    /// Whether it has exited.
    package var hasExited: Bool { exited.withLock { $0 } }

    /// Starts `arguments[0]` with `arguments` and `environment`, in `directory` when given.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with `code` and the `posix_spawn` error's message;
    ///   `invalid-argument` for an empty command.
    package init(
        _ arguments: [String], environment: [String: String], directory: String? = nil,
        code: SandboxError.Code = .daemonUnavailable
    ) throws(SandboxError) {
        guard let path = arguments.first else {
            throw SandboxError(.invalidArgument, "A command needs at least the program's path.")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0)
        if let closeFrom = Self.addCloseFrom { _ = closeFrom(&actions, STDERR_FILENO + 1) }
        if let directory {
            guard let addChdir = Self.addChdir else {
                throw SandboxError(
                    code, "This C library cannot start '\(path)' in '\(directory)' (glibc 2.29 or later needed).")
            }
            _ = addChdir(&actions, directory)
        }
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
            throw SandboxError(code, "Could not start '\(path)': \(String(cString: strerror(status))).", path: path)
        }
        self.pid = pid
        do {
            try OwnedThread.detached(name: "sandbox-reaper") { [pid, self] in
                var status: Int32 = 0
                while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
                exited.withLock { $0 = true }
            }
        } catch {
            // No thread to reap it: the process runs on regardless (it is detached), and lingers
            // as a zombie after it exits until this process does; ``hasExited`` stays false.
        }
    }

    /// Sends `signal` unless it has exited (checked under the lock the reaper sets, so the signal
    /// never reaches a process that reused the pid... after the reaper's `waitpid`).
    package func signal(_ signal: Int32) {
        exited.withLock { exited in
            if !exited { kill(pid, signal) }
        }
    }
}
