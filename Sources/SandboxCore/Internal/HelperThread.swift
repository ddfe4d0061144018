import Glibc

/// A joinable thread of our own running one closure: for work that blocks in the kernel (unlinks
/// waiting on the journal) and must not occupy a thread of Swift's cooperative pool, whose caller
/// then waits for it with ``join()``, which needs nothing from the pool.
struct HelperThread: ~Copyable {
    private let thread: pthread_t

    /// Starts `body` on a new thread, or returns `nil` when the system has no thread to give
    /// (`pthread_create` failed: the caller does the work itself).
    init?(_ body: @escaping @Sendable () -> Void) {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                Unmanaged<Body>.fromOpaque(argument).takeRetainedValue().body()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        self.thread = thread
    }

    /// Waits for the closure to return.
    consuming func join() {
        pthread_join(thread, nil)
        discard self
    }

    deinit {
        pthread_join(thread, nil)
    }

    private final class Body {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
