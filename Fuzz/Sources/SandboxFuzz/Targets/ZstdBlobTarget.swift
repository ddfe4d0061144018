import Sandbox
@_spi(Fuzzing) import SandboxBackup

extension FuzzTarget {
    /// A backup blob stored compressed (issue 30): what a damaged or forged pack file hands the
    /// zstd decoder.
    ///
    /// The first byte picks the mode. Even: the next 4 bytes (little-endian) are the uncompressed
    /// length the pack's header gives, the rest is the stored frame; the blob reads to exactly that
    /// many bytes (never more than the maximum) or is refused `repository-damaged` naming the blob.
    /// Odd: the rest is a blob's plaintext; compressed, it saves at least 1/16 or is stored raw,
    /// and the frame decompresses back to the plaintext.
    static let zstdBlob = FuzzTarget(
        name: "zstd-blob",
        run: { input in
            guard let mode = input.first else { return }
            let blob = "fuzzed-blob"
            var compression = BlobCompressionEntryPoints()
            if mode & 1 == 1 {
                let plain = Array(input.dropFirst())
                guard let stored = plain.withUnsafeBytes({ compression.compress($0) }) else { return }
                let most = plain.count - plain.count / BlobCompressionEntryPoints.minimumSavingDivisor
                invariant(stored.count <= most, "\(plain.count) bytes compressed to \(stored.count)")
                let result = stored.withUnsafeBytes { bytes in
                    Result { () throws(SandboxError) in
                        try compression.decompress(bytes, uncompressedLength: plain.count, blob: blob)
                    }
                }
                switch result {
                case .success(let read): invariant(read == plain, "a compressed blob decompresses to other bytes")
                case .failure(let error): invariant(false, "a blob the codec compressed does not decompress: \(error)")
                }
                return
            }
            guard input.count >= 5 else { return }
            let length = Int(input[1...4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            let stored = Array(input.dropFirst(5))
            let result = stored.withUnsafeBytes { bytes in
                Result { () throws(SandboxError) in
                    try compression.decompress(bytes, uncompressedLength: length, blob: blob)
                }
            }
            switch result {
            case .success(let read):
                invariant(read.count == length, "a blob declared \(length) bytes read to \(read.count)")
                invariant(length <= BlobCompressionEntryPoints.maximumLength, "a blob past the maximum read")
            case .failure(let error):
                expectRefusal(
                    code: error.code.rawValue, among: ["repository-damaged"], message: error.message,
                    for: "BlobCompression.decompress")
                invariant(error.message.contains("'\(blob)'"), "the refusal does not name the blob: \(error.message)")
            }
        },
        seeds: {
            // Frames the codec writes (text, runs, a few repeated records) with their lengths, and
            // plaintexts for the round trip.
            var compression = BlobCompressionEntryPoints()
            var seeds: [String: [UInt8]] = [:]
            let plains: [String: [UInt8]] = [
                "text": Array(String(repeating: "the sandbox backs up the container; ", count: 200).utf8),
                "zeros": [UInt8](repeating: 0, count: 70_000),
                "records": (0..<2_000).flatMap { Array("row \($0 % 37),\($0 % 11)\n".utf8) },
            ]
            for (name, plain) in plains {
                seeds["round-trip-" + name] = [1] + plain.prefix(4096)
                if let stored = plain.withUnsafeBytes({ compression.compress($0) }) {
                    seeds["frame-" + name] =
                        [0] + withUnsafeBytes(of: UInt32(plain.count).littleEndian, Array.init) + stored
                }
            }
            return seeds
        })
}
