/// Comparing secrets (the pairing code's header, a CSRF token, a session's folder) in a time that
/// says nothing about how much of a guess was right.
enum ConstantTime {
    /// Whether `a` and `b` are equal, in a time that depends only on their lengths.
    static func equal(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for (x, y) in zip(a, b) { difference |= x ^ y }
        return difference == 0
    }
}
