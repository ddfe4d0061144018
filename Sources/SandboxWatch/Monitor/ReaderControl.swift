import SandboxCore

/// Requests from a monitor's owner to its reader thread (stop, pause) and the thread's answers.
///
/// `@unchecked Sendable`: every stored property is guarded by `condition`.
final class ReaderControl: @unchecked Sendable {
    private let condition = ConditionLock()
    private var stopRequested = false
    private var pauseRequested = false
    private var paused = false
    private var exited = false
    let wake: WakeSignal

    init(wake: WakeSignal) { self.wake = wake }

    /// Asks the reader to stop; returns at once (safe on any thread, including the reader's).
    func requestStop() {
        condition.lock()
        stopRequested = true
        condition.unlock()
        wake.signal()
    }

    /// Waits until the reader has exited and released its descriptors.
    func waitUntilExited() {
        condition.lock()
        while !exited { condition.wait() }
        condition.unlock()
    }

    /// Pauses or resumes reading from the kernel, and waits until the reader has complied (or exited).
    func setPaused(_ value: Bool) {
        condition.lock()
        pauseRequested = value
        condition.unlock()
        wake.signal()
        condition.lock()
        while paused != value && !exited { condition.wait() }
        condition.unlock()
    }

    // MARK: - Reader side

    var requests: (stop: Bool, pause: Bool) {
        condition.lock()
        defer { condition.unlock() }
        return (stopRequested, pauseRequested)
    }

    func acknowledge(paused value: Bool) {
        condition.lock()
        paused = value
        condition.broadcast()
        condition.unlock()
    }

    func markExited() {
        condition.lock()
        exited = true
        condition.broadcast()
        condition.unlock()
    }
}
