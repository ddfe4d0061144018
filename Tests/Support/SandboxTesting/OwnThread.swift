import Foundation

/// Runs `body` on a thread of its own and returns its result: blocking calls (sockets, SQLite, an
/// attacker's tight loop) never hold one of the cooperative pool's threads (two on CI).
public func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.start()
    }
}
