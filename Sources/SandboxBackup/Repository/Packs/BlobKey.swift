import SandboxCore

/// A blob's id as its 32 bytes (four big-endian words, so that `<` orders as the hex does): what
/// the in-memory index keeps instead of a 64-character string.
struct BlobKey: Hashable, Comparable, Sendable {
    var words: (UInt64, UInt64, UInt64, UInt64)

    /// The key of a 64-lowercase-hex-digit id, or `nil` for anything else.
    init?(hex: String) {
        guard Hex.isLowercase(hex, count: 64), let bytes = Hex.bytes(hex.utf8) else { return nil }
        self = bytes.withUnsafeBytes { BlobKey(bytes: $0) }
    }

    /// The key held by the first 32 bytes of `bytes` (which has at least 32).
    init(bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count >= 32, "a blob key is 32 bytes")
        func word(_ index: Int) -> UInt64 {
            var value: UInt64 = 0
            for byte in bytes[(index * 8)..<(index * 8 + 8)] { value = value << 8 | UInt64(byte) }
            return value
        }
        words = (word(0), word(1), word(2), word(3))
    }

    /// The 32 bytes.
    var bytes: [UInt8] {
        var result: [UInt8] = []
        result.reserveCapacity(32)
        for word in [words.0, words.1, words.2, words.3] {
            for shift in stride(from: 56, through: 0, by: -8) {
                result.append(UInt8(truncatingIfNeeded: word >> shift))
            }
        }
        return result
    }

    /// The id as 64 lowercase hex digits.
    var hex: String { Hex.string(bytes) }

    static func == (left: BlobKey, right: BlobKey) -> Bool {
        left.words == right.words
    }

    static func < (left: BlobKey, right: BlobKey) -> Bool {
        left.words < right.words
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
