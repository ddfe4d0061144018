import Foundation

/// Runs blocking work (a socket read in a test) on a thread of its own, never on one of the
/// cooperative pool's.
func onThread<T: Sendable>(_ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
