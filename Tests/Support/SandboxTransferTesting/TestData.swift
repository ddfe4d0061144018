import Crypto

/// Payloads for transfer tests and benchmarks.
public enum TestData {
    /// `count` pseudo-random bytes from `seed` (the same every run; incompressible).
    public static func bytes(_ count: Int, seed: UInt64 = 1) -> [UInt8] {
        var state = seed &* 0x9E37_79B9_7F4A_7C15 | 1
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { buffer in
            var index = 0
            while index < count {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                withUnsafeBytes(of: state) { word in
                    for byte in word where index < count {
                        buffer[index] = byte
                        index += 1
                    }
                }
            }
        }
        return bytes
    }

    /// SHA-256 in lower-case hex.
    public static func sha256(_ bytes: some Sequence<UInt8>) -> String {
        var hash = SHA256()
        hash.update(data: Array(bytes))
        return hash.finalize().map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }
}
