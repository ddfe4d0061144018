/// Waits until `condition` holds, checking every 2 ms, for at most `timeout`: tests wait on
/// conditions, never on fixed sleeps. Suspends between checks, so no thread of the cooperative
/// pool (two on CI) is held while the awaited work runs.
///
/// A deadline alone is not enough on a loaded machine: when other tests hold both of the pool's
/// threads for longer than `timeout`, the first check after they let go is already past the
/// deadline, and a condition that holds only part of the time (a temporary that exists while a
/// writer runs) would be judged on that one look. So the wait ends unmet only once the deadline
/// has passed *and* the condition has been checked ``graceChecks`` more times since.
///
/// - Returns: whether the condition held before the wait ended.
public func eventually(
    timeout: Duration = .seconds(20),
    _ condition: () throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    var checksPastDeadline = 0
    while try !condition() {
        if ContinuousClock.now >= deadline {
            checksPastDeadline += 1
            guard checksPastDeadline <= graceChecks else { return false }
        }
        do { try await Task.sleep(for: .milliseconds(2)) } catch { return try condition() }
    }
    return true
}

/// How many more times ``eventually(timeout:_:)`` checks its condition once the deadline has
/// passed (about 0.2 s of checking when the pool is free).
public let graceChecks = 100
