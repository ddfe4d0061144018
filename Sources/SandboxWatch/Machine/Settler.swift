/// Coalesces a burst of activity into one notification: it fires once activity has stopped for
/// `settle` (trailing), or at the latest `maximumDelay` after the first activity, so a continuous
/// stream of changes still produces regular notifications. Pure: instants are passed in.
struct Settler: Sendable, Equatable {
    typealias Instant = ContinuousClock.Instant

    let settle: Duration
    let maximumDelay: Duration
    private(set) var firstActivity: Instant?
    private(set) var lastActivity: Instant?

    init(settle: Duration, maximumDelay: Duration) {
        self.settle = settle
        self.maximumDelay = max(settle, maximumDelay)
    }

    mutating func noteActivity(at now: Instant) {
        if firstActivity == nil { firstActivity = now }
        lastActivity = now
    }

    /// When to fire, or `nil` with nothing pending.
    var deadline: Instant? {
        guard let firstActivity, let lastActivity else { return nil }
        return min(lastActivity + settle, firstActivity + maximumDelay)
    }

    /// Whether to notify now; if so the burst is over and the settler is reset.
    mutating func fire(at now: Instant) -> Bool {
        guard let deadline, deadline <= now else { return false }
        firstActivity = nil
        lastActivity = nil
        return true
    }
}
