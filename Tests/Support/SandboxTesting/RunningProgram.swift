import Foundation
import Glibc
import Synchronization

/// A process started by ``BuiltProgram/start(_:environment:input:outputIn:)``.
///
/// A thread of its own waits for the process to end (`waitid` blocks), so awaiting ``exit`` holds
/// no thread of the cooperative pool. The process is reaped under the same lock that
/// ``signal(_:)`` takes, so a signal never reaches another process that was given its identifier.
public final class RunningProgram: Sendable {
    /// How long ``finish(timeout:)`` waits before it calls the process hung: long enough for a
    /// crash backtrace on a loaded 2-core machine.
    public static let defaultTimeout: Duration = .seconds(120)

    /// Where the standard output and error go (`nil`: discarded).
    struct Files: Sendable {
        var stdout: String?
        var stderr: String?
    }

    private struct State {
        var exit: ProgramExit?
        var runTime: Duration?
        var killedForTimeout = false
        var waiters: [CheckedContinuation<ProgramExit, Never>] = []
    }

    /// The process identifier.
    public let pid: pid_t
    let files: Files
    private let state = Mutex(State())
    private let started: ContinuousClock.Instant

    init(pid: pid_t, files: Files) {
        self.pid = pid
        self.files = files
        self.started = .now
        let waiter = Thread { [self] in reap() }
        waiter.start()
    }

    /// Whether the process has not ended yet.
    public var isRunning: Bool { state.withLock { $0.exit == nil } }

    /// How the process ended, or `nil` while it runs (``exit`` waits for it).
    public var ended: ProgramExit? { state.withLock { $0.exit } }

    /// How long the process ran, from its start to its end as the waiting thread saw it (`nil`
    /// while it runs).
    ///
    /// Timing an `await` of ``exit`` instead measures also how long the awaiting task waited for a
    /// thread of the cooperative pool, which on a loaded 2-core machine can be many times the run.
    public var runTime: Duration? { state.withLock { $0.runTime } }

    /// Sends `signal` to the process; does nothing once it has ended.
    public func signal(_ signal: Int32) {
        state.withLock { state in
            if state.exit == nil { kill(pid, signal) }
        }
    }

    /// Sends `signal` to the process `delay` from now (unless it has ended by then).
    ///
    /// The delay is kept by Dispatch, not by a task: a task's sleep ends only when a thread of the
    /// cooperative pool is free, and on a loaded 2-core machine that can be long after `delay`.
    public func signal(_ signal: Int32, after delay: Duration) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(clamping: min(seconds, 1_000_000_000)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [self] in
            self.signal(signal)
        }
    }

    /// How the process ended, once it has.
    public var exit: ProgramExit {
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

    /// Waits for the process to end, killing it with `SIGKILL` if it runs past `timeout` (then
    /// ``ProgramExit/timedOut`` is set).
    ///
    /// The deadline is kept by Dispatch, not by a task: a task's sleep ends only when a thread of
    /// the cooperative pool is free, and tests that block the pool's two threads in CI once kept
    /// a 200 ms deadline from firing until the program ended by itself a minute later.
    public func exit(timeout: Duration) async -> ProgramExit {
        let watchdog = DispatchWorkItem { [self] in
            state.withLock { state in
                guard state.exit == nil else { return }
                state.killedForTimeout = true
                kill(pid, SIGKILL)
            }
        }
        let (seconds, attoseconds) = timeout.components
        let nanoseconds = Int(clamping: min(seconds, 1_000_000_000)) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(nanoseconds), execute: watchdog)
        defer { watchdog.cancel() }
        return await exit
    }

    /// Waits for the process to end (see ``exit(timeout:)``) and collects what it printed.
    ///
    /// - Throws: ``TestFailure`` when the output cannot be read.
    public func finish(timeout: Duration = RunningProgram.defaultTimeout) async throws -> ProgramOutput {
        let exit = await exit(timeout: timeout)
        return ProgramOutput(exit: exit, stdout: try standardOutput(), stderr: try standardError())
    }

    /// What the process has written to its standard output so far.
    ///
    /// - Throws: ``TestFailure`` when the file cannot be read.
    public func standardOutput() throws -> String { try Self.read(files.stdout) }

    /// What the process has written to its standard error so far.
    ///
    /// - Throws: ``TestFailure`` when the file cannot be read.
    public func standardError() throws -> String { try Self.read(files.stderr) }

    private static func read(_ path: String?) throws -> String {
        guard let path else { return "" }
        guard let data = FileManager.default.contents(atPath: path) else { throw TestFailure("cannot read '\(path)'") }
        return String(decoding: data, as: UTF8.self)
    }

    /// Runs on the waiting thread: blocks until the process ends, then reaps it under the lock.
    private func reap() {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WEXITED | WNOWAIT) < 0 && errno == EINTR {}
        let waiters = state.withLock { state in
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            state.runTime = ContinuousClock.now - started
            let signal = status & 0x7F
            state.exit = ProgramExit(
                status: signal == 0 ? (status >> 8) & 0xFF : nil,
                signal: signal == 0 ? nil : signal,
                timedOut: state.killedForTimeout
            )
            defer { state.waiters = [] }
            return state.waiters.map { ($0, state.exit) }
        }
        for (waiter, exit) in waiters {
            if let exit { waiter.resume(returning: exit) }
        }
    }
}
