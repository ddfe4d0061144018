import Foundation
import Glibc
import SandboxTesting
import Synchronization

/// The other end of a test that blocks: runs `body` on a thread of its own.
///
/// A test that makes a blocking call (reading a pipe until its end) holds one of the cooperative
/// pool's threads, which are as many as the cores (two on CI). If the peer that unblocks it (the
/// pipe's writer) were a `Task`, two such tests running side by side would hold both threads and
/// wait forever for peers that can never run. A peer on its own thread always runs.
final class PeerThread: Sendable {
    private let finished = Mutex(false)

    /// Starts `body` now. `SIGPIPE` is blocked on the thread, so a write to a pipe whose reader has
    /// gone fails with `EPIPE` instead of ending the test process.
    init(_ body: @escaping @Sendable () -> Void) {
        let thread = Thread { [self] in
            var signals = sigset_t()
            sigemptyset(&signals)
            sigaddset(&signals, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &signals, nil)
            body()
            finished.withLock { $0 = true }
        }
        thread.start()
    }

    /// Waits, without holding a thread, until `body` has returned.
    func join() async {
        while !(await eventually { finished.withLock { $0 } }) {}
    }
}
