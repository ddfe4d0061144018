/// ``eventually(timeout:_:)`` for a condition that awaits (a status request to the daemon),
/// checked every 20 ms.
func eventuallyAsync(timeout: Duration = .seconds(30), _ condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while await !condition() {
        guard ContinuousClock.now < deadline else { return false }
        do { try await Task.sleep(for: .milliseconds(20)) } catch { return await condition() }
    }
    return true
}
