import Dispatch

/// Makes libdispatch create, now, the descriptors it would otherwise create the first time each
/// clock is used: a process that may later run out of descriptors calls ``prime()`` at start.
///
/// On Linux libdispatch keeps one `timerfd` per clock — the wall clock (`CLOCK_REALTIME`,
/// `DispatchWallTime`), uptime (`CLOCK_MONOTONIC`: `DispatchTime`, `SuspendingClock`) and the
/// continuous clock (`CLOCK_BOOTTIME`: `ContinuousClock`) — and makes it the first time a timer of
/// that clock is armed. Swift's concurrency runtime arms one for every `Task.sleep`. When that
/// first `timerfd_create` fails with `EMFILE` or `ENFILE`, the process dies with `SIGILL` (measured
/// here with Swift 6's libdispatch, 20 of 20 runs), and with no message: the crash reporter
/// itself needs descriptors. A server flooded with connections until `accept` fails (the share's
/// descriptor-exhaustion test, in one CI run in three on a loaded machine) could so be killed by
/// whichever of its tasks first slept on a clock not used before. Once made, a clock's `timerfd`
/// is kept for the life of the process, so arming each clock once at start is enough.
package enum DispatchClocks {
    /// How long the short timers that confirm each clock is armed run.
    static let confirmation = DispatchTimeInterval.milliseconds(5)

    /// Arms a timer on each of libdispatch's three clocks and waits until each has fired one.
    ///
    /// A far timer on each clock is armed first, then a short one is awaited: when the short one
    /// has fired, libdispatch's manager thread has armed that clock (a short timer alone may
    /// already be due when the manager gets to it and then fires without arming anything). The
    /// far timers are cancelled before this returns; the descriptors stay.
    package static func prime() async {
        let far = DispatchTimeInterval.seconds(3600)
        let wall = DispatchSource.makeTimerSource(queue: .global())
        wall.schedule(wallDeadline: .now() + far)
        wall.resume()
        let uptime = DispatchSource.makeTimerSource(queue: .global())
        uptime.schedule(deadline: .now() + far)
        uptime.resume()
        let continuous = Task { try await Task.sleep(for: .seconds(3600), clock: .continuous) }
        await withCheckedContinuation { (resumed: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(wallDeadline: .now() + confirmation) { resumed.resume() }
        }
        await withCheckedContinuation { (resumed: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().asyncAfter(deadline: .now() + confirmation) { resumed.resume() }
        }
        do {
            try await Task.sleep(for: .milliseconds(5), clock: .continuous)
        } catch {
            // Cancelled: the caller is stopping, and the far sleep above has armed the clock by now
            // or will; nothing to report.
        }
        wall.cancel()
        uptime.cancel()
        continuous.cancel()
    }
}
