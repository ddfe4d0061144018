import Foundation
import Glibc
import SandboxCore
import Synchronization

/// A running confined app, started by ``ConfinedLaunch/start(standardInput:standardOutput:standardError:passing:)``.
///
/// A thread of its own waits for the process to end (`waitid` blocks), so awaiting ``exit`` holds
/// no thread of the cooperative pool. The process is reaped under the lock that ``signal(_:)``
/// takes, so a signal never reaches another process that was given the same identifier.
public final class AppProcess: Sendable {
    private struct State {
        var exit: AppExit?
        var waiters: [CheckedContinuation<AppExit, Never>] = []
    }

    /// The process identifier; also its process group and session (the app starts a session).
    public let pid: pid_t
    private let state = Mutex(State())
    /// Signalled once the app is reaped; each waiter passes the signal on to the next.
    private let ended = Semaphore()

    /// Starts the thread that waits for `pid` to end, then ends `registration`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/tooManyOpenFiles`` when no thread can be started
    ///   (the caller then ends the process, which nothing would reap).
    init(pid: pid_t, registration: RunRegistration) throws(SandboxError) {
        self.pid = pid
        try OwnedThread.detached(name: "sandbox-run-wait") { [self] in reap(then: registration) }
    }

    /// Sends `signal` to the app's process group (the app and what it started without leaving
    /// its group, as a terminal's Ctrl-C does); nothing once the app has ended.
    public func signal(_ signal: Int32) {
        state.withLock { state in
            guard state.exit == nil else { return }
            if kill(-pid, signal) != 0 { kill(pid, signal) }
        }
    }

    /// Whether the app has ended (and been reaped).
    public var hasExited: Bool { state.withLock { $0.exit != nil } }

    /// How the app ended, once it has.
    public var exit: AppExit {
        get async {
            await withCheckedContinuation { continuation in
                let exit = state.withLock { state in
                    if state.exit == nil { state.waiters.append(continuation) }
                    return state.exit
                }
                if let exit { continuation.resume(returning: exit) }
            }
        }
    }

    /// Blocks the calling thread until the app ends. Call it from a thread you own, never from a
    /// task (use ``exit`` there).
    public func waitUntilExit() -> AppExit {
        ended.wait()
        ended.signal()
        return state.withLock { $0.exit } ?? .exited(-1)
    }

    /// Runs on the waiting thread: blocks until the process ends, then reaps it under the lock and
    /// ends its registration before anyone waiting learns it ended (operations refuse until then).
    private func reap(then registration: RunRegistration) {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        let (waiters, exit) = state.withLock { state in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            let exit = AppExit(waitStatus: status)
            state.exit = exit
            defer { state.waiters = [] }
            return (state.waiters, exit)
        }
        registration.ended()
        ended.signal()
        for waiter in waiters { waiter.resume(returning: exit) }
    }
}
