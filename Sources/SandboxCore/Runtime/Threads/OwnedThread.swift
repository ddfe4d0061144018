import Glibc
import SystemPackage

/// A named thread of our own: for work that blocks in the kernel (`waitid`, a `recv`, a `flock`, an
/// `inotify` read, a journal wait) and must never occupy a thread of Swift's cooperative pool.
/// The one place the package creates a thread (`pthread_create`).
///
/// The thread is named once, before `body` runs (``ThreadName``). The value is the thread's handle:
/// ``join()`` waits for `body` to return, ``detach()`` lets the thread end on its own; a handle
/// dropped without either joins (a thread is never leaked).
package struct OwnedThread: ~Copyable {
    /// `nil` once joined or detached.
    private var handle: pthread_t?

    /// Starts `body` on a new thread named `name`.
    ///
    /// - Throws: ``SandboxError/Code/tooManyOpenFiles`` (cause `pthread_create`) when the system
    ///   has no thread to give (`EAGAIN`: a limit on threads or memory).
    package init(name: String, _ body: @escaping @Sendable () -> Void) throws(SandboxError) {
        handle = try Self.create(name: name, body)
    }

    /// Starts `body` on a new thread named `name` that ends on its own (nothing joins it).
    ///
    /// - Throws: ``SandboxError/Code/tooManyOpenFiles`` as ``init(name:_:)``.
    package static func detached(name: String, _ body: @escaping @Sendable () -> Void) throws(SandboxError) {
        try OwnedThread(name: name, body).detach()
    }

    /// Blocks the calling thread for `duration` (a thread you own, never one of the cooperative
    /// pool's): the one sleep of the package's own threads. A signal may end it early.
    package static func sleep(for duration: Duration) {
        var request = duration.timespec
        _ = nanosleep(&request, nil)  // EINTR: the caller's next step comes a little early, no harm
    }

    /// Waits until `body` has returned. Blocks the calling thread: call it from a thread you own.
    package consuming func join() {
        if let handle { pthread_join(handle, nil) }
        handle = nil
    }

    /// Lets the thread end on its own; its resources go when `body` returns.
    package consuming func detach() {
        if let handle { pthread_detach(handle) }
        handle = nil
    }

    deinit {
        if let handle { pthread_join(handle, nil) }
    }

    /// Up to `count` joinable threads running the same `body`, named `name`: fewer (perhaps none)
    /// when the system has no more threads to give, and the caller does the work itself.
    package struct Group: ~Copyable {
        private var handles: [pthread_t] = []

        /// Starts `body` on up to `count` new threads.
        package init(count: Int, name: String, _ body: @escaping @Sendable () -> Void) {
            for _ in 0..<max(0, count) {
                do {
                    handles.append(try OwnedThread.create(name: name, body))
                } catch {
                    break  // out of threads: those started do the work, with the caller
                }
            }
        }

        /// How many threads were started.
        package var count: Int { handles.count }

        /// Waits until every thread's `body` has returned.
        package mutating func join() {
            for handle in handles { pthread_join(handle, nil) }
            handles = []
        }

        deinit {
            for handle in handles { pthread_join(handle, nil) }
        }
    }

    /// The one `pthread_create` of the package: a joinable thread named `name` running `body`.
    private static func create(name: String, _ body: @escaping @Sendable () -> Void) throws(SandboxError) -> pthread_t {
        let context = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let status = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let start = Unmanaged<Start>.fromOpaque(argument).takeRetainedValue()
                ThreadName.setCurrent(start.name)
                start.body()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<Start>.fromOpaque(context).release()
            throw SandboxError(
                .tooManyOpenFiles,
                "Could not start the thread '\(name)' (\(Errno(rawValue: status))): the process has reached its limit of threads or memory; raise 'ulimit -u' or end other work.",
                cause: SystemCallFailure(systemCall: "pthread_create", errno: Errno(rawValue: status)))
        }
        return thread
    }

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }
}
