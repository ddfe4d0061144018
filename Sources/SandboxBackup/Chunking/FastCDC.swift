/// FastCDC content-defined chunking (Xia et al., USENIX ATC 2016 and ToS 2020) with normalized
/// chunking, as a streaming state machine: feed it bytes in any pieces and it says where chunks end.
///
/// Why FastCDC: a cut depends only on the 64 bytes before it (the gear hash shifts older bytes
/// out), so an insertion or an edit moves the cuts near it and no others, and the following chunks
/// keep their hashes — a small change to a large file stores little. It is restic's Rabin
/// fingerprinting's result at a fraction of the cost (one shift, one add and one table lookup a
/// byte), and "normalized chunking" (a stricter mask before the average size, a looser one after)
/// keeps sizes close to the average. The first `minimumSize` bytes of a chunk are skipped without
/// hashing (cut-point skipping).
///
/// Deterministic: the same bytes give the same cuts however they are fed (the gear table is fixed).
public struct FastCDC: Sendable {
    /// The chunk sizes cut to.
    public let parameters: ChunkingParameters
    private let strictMask: UInt64
    private let looseMask: UInt64
    /// Bytes of the current chunk seen so far.
    public private(set) var length = 0
    private var hash: UInt64 = 0

    /// A chunker for `parameters`. Normalization level 1 (masks of average ± 1 bit): level 2
    /// re-stored more after an edit in the measurements (the cuts take longer to fall into step).
    public init(parameters: ChunkingParameters = .standard) {
        let normalization = 1
        self.parameters = parameters
        let bits = parameters.averageSize.trailingZeroBitCount
        // The top bits of a gear hash mix the most input bytes, so the masks take those.
        strictMask = ~UInt64(0) << UInt64(64 - min(bits + normalization, 63))
        looseMask = ~UInt64(0) << UInt64(64 - max(bits - normalization, 1))
    }

    /// Consumes bytes from the start of `bytes` up to the end of the current chunk or of `bytes`.
    ///
    /// - Returns: how many bytes were consumed, and whether the current chunk ends after them
    ///   (the state is then reset for the next chunk). The caller feeds the rest again.
    public mutating func consume(_ bytes: UnsafeRawBufferPointer) -> (count: Int, endsChunk: Bool) {
        var index = 0
        let count = bytes.count
        // Cut-point skipping: nothing before the minimum can end a chunk.
        if length < parameters.minimumSize {
            let skip = min(parameters.minimumSize - length, count)
            index = skip
            length += skip
            if index == count { return (count, length >= parameters.maximumSize && endChunk()) }
        }
        let normal = parameters.averageSize
        let maximum = parameters.maximumSize
        let strict = strictMask
        let loose = looseMask
        var hash = self.hash
        var length = self.length
        let found: Bool = GearTable.values.withUnsafeBufferPointer { gear in
            while index < count {
                hash = (hash << 1) &+ gear[Int(bytes[index])]
                index += 1
                length += 1
                let mask = length < normal ? strict : loose
                if hash & mask == 0 || length >= maximum { return true }
            }
            return false
        }
        self.hash = hash
        self.length = length
        if found { _ = endChunk() }
        return (index, found)
    }

    /// Resets the state for the next chunk; returns `true`.
    private mutating func endChunk() -> Bool {
        length = 0
        hash = 0
        return true
    }
}
