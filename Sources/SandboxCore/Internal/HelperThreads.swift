import Glibc

/// Joinable threads of our own, each running the same closure: for work that blocks in the kernel
/// (unlinks waiting on the journal) and must not occupy threads of Swift's cooperative pool, whose
/// caller then waits for them with ``join()``, which needs nothing from the pool.
struct HelperThreads: ~Copyable {
    private var threads: [pthread_t] = []

    /// Starts `body` on up to `count` new threads: fewer (perhaps none) when the system has no
    /// more threads to give (`pthread_create` failed), and the caller does the work itself.
    init(count: Int, _ body: @escaping @Sendable () -> Void) {
        for _ in 0..<max(0, count) {
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
                break
            }
            threads.append(thread)
        }
    }

    /// How many threads were started.
    var count: Int { threads.count }

    /// Waits for every thread's closure to return.
    mutating func join() {
        for thread in threads { pthread_join(thread, nil) }
        threads = []
    }

    deinit {
        for thread in threads { pthread_join(thread, nil) }
    }

    private final class Body {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
}
