/// The 256 random 64-bit values FastCDC's gear hash adds, one per byte value.
///
/// Generated with SplitMix64 from a fixed seed, so every version of this program cuts a file at
/// the same places: changing the seed or the generator would make every later backup store
/// everything again (nothing would deduplicate against older snapshots). Do not change it.
enum GearTable {
    static let seed: UInt64 = 0x5341_4E44_424F_5843  // "SANDBOXC"

    static let values: [UInt64] = {
        var state = seed
        return (0..<256).map { _ in
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }()
}
