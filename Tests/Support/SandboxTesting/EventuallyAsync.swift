/// ``eventually(timeout:_:)`` for a condition that awaits (a status request to the daemon, a
/// browse of the network), checked every 20 ms.
public func eventuallyAsync(
    timeout: Duration = .seconds(30), _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { return false }
        do { try await Task.sleep(for: .milliseconds(20)) } catch { return try await condition() }
    }
    return true
}
