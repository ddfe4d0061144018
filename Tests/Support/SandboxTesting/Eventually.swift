/// Waits until `condition` holds, checking every 2 ms, for at most `timeout`: tests wait on
/// conditions, never on fixed sleeps. Suspends between checks, so no thread of the cooperative
/// pool (two on CI) is held while the awaited work runs.
///
/// - Returns: whether the condition held before the deadline.
public func eventually(
    timeout: Duration = .seconds(20),
    _ condition: () throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        guard ContinuousClock.now < deadline else { return false }
        do { try await Task.sleep(for: .milliseconds(2)) } catch { return try condition() }
    }
    return true
}
