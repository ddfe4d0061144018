import Glibc
import Synchronization
import SystemPackage

/// A descriptor shared by handles, streams and channel operations: closed exactly once, never while a
/// system call is using it, and then reported to an optional release handler.
///
/// A call takes a lease (``withDescriptor(_:)``) on ``LeaseCount``'s stripe for its CPU, then reads
/// the phase; ``close()`` moves the phase to closing, then sums the stripes. Neither takes a lock,
/// and two reads on two CPUs write to no common cache line.
///
/// Why the descriptor is never closed under a lease, yet always closed (every stripe change and
/// every phase access is sequentially consistent, so all of them fall in one total order S, and a
/// load sees the last change before it in S — the Dekker pattern):
/// - A call increments its stripe (I), then loads the phase (L). If L saw `open`, L comes before
///   the change to `closing` (C) in S, so I does too. Whoever closes reads the stripes after C
///   (the closer after its own C, a releasing call after loading `closing`), so each of its stripe
///   loads either comes before that call's decrement, and sees at least 1 (no close), or after it.
///   A call that saw `closing` or `closed` decrements without touching the descriptor.
/// - Only calls that are already leased, or that will see `closing` and undo their increment,
///   change stripes after C. If none does, the closer's stripe loads see every lease ended and it
///   closes. Otherwise the thread making the last stripe change in S (a decrement) then loads the
///   phase — `closing` or `closed`, since C came before — and reads every stripe after every
///   change: all zero, so it closes (or someone already did).
/// - Several threads can find the stripes at zero; the compare-and-exchange from `closing` to
///   `closed` lets exactly one of them close.
final class SharedDescriptor: Sendable {
    /// The path, for messages.
    let path: String
    private let rawValue: CInt
    /// A ``DescriptorState``'s raw value.
    private let state = Atomic<Int>(DescriptorState.open.rawValue)
    private let leases = LeaseCount()
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
        // No call can hold a lease any more: whatever the phase, nobody else will close.
        if state.exchange(DescriptorState.closed.rawValue, ordering: .sequentiallyConsistent)
            != DescriptorState.closed.rawValue
        {
            finishClosing()
        }
    }

    /// Runs `body` with the descriptor, holding a lease so it cannot be closed meanwhile.
    ///
    /// - Throws: ``SandboxError/Code/closed`` when the descriptor has been closed (see
    ///   ``SandboxError/closed(_:)``), and what `body` throws.
    func withDescriptor<T, E: Error>(_ body: (CInt) throws(E) -> T) throws(SandboxError) -> Result<T, E> {
        let stripe = leases.acquire()
        defer { endLease(stripe) }
        guard state.load(ordering: .sequentiallyConsistent) == DescriptorState.open.rawValue else {
            throw .closed(path)
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
        let (requested, _) = state.compareExchange(
            expected: DescriptorState.open.rawValue, desired: DescriptorState.closing.rawValue,
            ordering: .sequentiallyConsistent)
        guard requested else { return false }
        if let error = closeIfIdle() { throw error }
        return true
    }

    /// Whether close has been requested.
    var isClosed: Bool { state.load(ordering: .acquiring) != DescriptorState.open.rawValue }

    /// Ends the lease ``LeaseCount/acquire()`` took on `stripe`, closing the descriptor when close
    /// is waiting for it (an error then goes to the release handler).
    private func endLease(_ stripe: Int) {
        leases.release(stripe)
        if state.load(ordering: .sequentiallyConsistent) == DescriptorState.closing.rawValue {
            closeIfIdle()
        }
    }

    /// Closes the descriptor if close was requested, no lease is held and no other thread closed it
    /// first; returns the `close(2)` error.
    @discardableResult
    private func closeIfIdle() -> SandboxError? {
        guard leases.isZero else { return nil }
        let (won, _) = state.compareExchange(
            expected: DescriptorState.closing.rawValue, desired: DescriptorState.closed.rawValue,
            ordering: .sequentiallyConsistent)
        return won ? finishClosing() : nil
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
