/// What a soak run counted and every invariant violation it saw, as the run goes.
actor SoakRecorder {
    private(set) var counts: [String: Int] = [:]
    private(set) var violations: [String] = []
    private(set) var peaks: [String: Int] = [:]
    private let started = ContinuousClock.now

    /// Adds one to the counter `key` ("restore completed", "SIGKILL share").
    func count(_ key: String, by amount: Int = 1) { counts[key, default: 0] += amount }

    /// Records a broken promise, stamped with the seconds since the start.
    func violation(_ text: String) {
        violations.append("[\(Int((ContinuousClock.now - started).components.seconds)) s] \(text)")
    }

    /// Keeps the highest memory peak seen for `kind`.
    func peak(_ kind: String, _ bytes: Int) { peaks[kind] = max(peaks[kind] ?? 0, bytes) }
}
