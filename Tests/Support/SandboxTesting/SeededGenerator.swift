/// SplitMix64: reproducible random choices for tests and the soak (from the printed seed).
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator whose choices follow from `seed` alone.
    public init(seed: UInt64) { state = seed }

    /// A generator of its own for the `stream`th task, so that each task's choices depend only on
    /// the seed, whatever the interleaving.
    public init(seed: UInt64, stream: Int) {
        var mixer = SeededGenerator(seed: seed ^ (UInt64(truncatingIfNeeded: stream) &* 0xD6E8_FEB8_6659_FD93))
        state = mixer.next()
    }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
