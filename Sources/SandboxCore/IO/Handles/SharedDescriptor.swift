import Glibc
import Synchronization
import SystemPackage

/// A descriptor shared by handles, streams and channel operations: closed exactly once, never while a
/// system call is using it, and then reported to an optional release handler.
final class SharedDescriptor: Sendable {
    /// The path, for messages.
    let path: String
    private let rawValue: CInt
    /// A ``DescriptorState``'s ``DescriptorState/word``, changed only by ``transition(_:)``.
    private let state = Atomic<Int>(DescriptorState().word)
    private let release: Mutex<Release>

    private struct Release {
        var handler: (@Sendable (SandboxError?) -> Void)?
        var waiters: [UnsafeContinuation<Void, Never>] = []
        var isDone = false
    }

    /// Takes ownership of `rawValue`.
    ///
    /// - Parameter onRelease: called once, after the descriptor is closed, with the `close(2)`
    ///   error if there was one.
    init(taking rawValue: CInt, path: String, onRelease: (@Sendable (SandboxError?) -> Void)? = nil) {
        self.rawValue = rawValue
        self.path = path
        self.release = Mutex(Release(handler: onRelease))
    }

    convenience init(
        _ owned: consuming OwnedDescriptor, path: String, onRelease: (@Sendable (SandboxError?) -> Void)? = nil
    ) {
        self.init(taking: owned.release(), path: path, onRelease: onRelease)
    }

    deinit {
        if transition({ $0.requestClose() }) {
            finishClosing()
        }
    }

    /// Runs `body` with the descriptor, holding a lease so it cannot be closed meanwhile.
    ///
    /// - Throws: ``SandboxError/Code/closed`` when the descriptor has been closed (see
    ///   ``SandboxError/closed(_:)``), and what `body` throws.
    func withDescriptor<T, E: Error>(_ body: (CInt) throws(E) -> T) throws(SandboxError) -> Result<T, E> {
        guard transition({ $0.acquire() }) else { throw .closed(path) }
        defer {
            if transition({ $0.release() }) { finishClosing() }
        }
        do throws(E) {
            return .success(try body(rawValue))
        } catch {
            return .failure(error)
        }
    }

    /// ``withDescriptor(_:)`` for bodies that throw ``SandboxError``.
    func use<T>(_ body: (CInt) throws(SandboxError) -> T) throws(SandboxError) -> T {
        try withDescriptor(body).get()
    }

    /// Closes the descriptor now, or when the last call using it returns.
    ///
    /// - Returns: `true` if this call asked for the close (later calls return `false`).
    /// - Throws: the `close(2)` error when the descriptor was closed now and `close` failed (the
    ///   descriptor is released all the same).
    @discardableResult
    func close() throws(SandboxError) -> Bool {
        let (requested, closeNow) = transition { state -> (Bool, Bool) in
            let wasOpen = state.phase == .open
            return (wasOpen, state.requestClose())
        }
        if closeNow, let error = finishClosing() { throw error }
        return requested
    }

    /// Whether close has been requested.
    var isClosed: Bool { DescriptorState(word: state.load(ordering: .acquiring)).phase != .open }

    /// Applies `change` to the state atomically (compare-and-exchange, retried when another thread
    /// changed it meanwhile) and returns what `change` returned for the state that was stored.
    private func transition<T>(_ change: (inout DescriptorState) -> T) -> T {
        var old = state.load(ordering: .relaxed)
        while true {
            var next = DescriptorState(word: old)
            let result = change(&next)
            if next.word == old { return result }  // nothing changed (a refused lease): nothing to store
            let (exchanged, current) = state.compareExchange(
                expected: old, desired: next.word, ordering: .acquiringAndReleasing)
            if exchanged { return result }
            old = current
        }
    }

    /// Waits until the descriptor has been closed and the release handler has run.
    func waitUntilReleased() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            let done = release.withLock { release -> Bool in
                if release.isDone { return true }
                release.waiters.append(continuation)
                return false
            }
            if done { continuation.resume() }
        }
    }

    @discardableResult
    private func finishClosing() -> SandboxError? {
        var error: SandboxError?
        if Glibc.close(rawValue) != 0 && errno != EINTR {
            error = .systemCall("close", errno: Errno(rawValue: errno), path: path)
        }
        let (handler, waiters) = release.withLock { release in
            release.isDone = true
            defer {
                release.handler = nil
                release.waiters = []
            }
            return (release.handler, release.waiters)
        }
        handler?(error)
        for waiter in waiters { waiter.resume() }
        return error
    }
}
