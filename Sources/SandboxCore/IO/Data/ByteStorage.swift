/// Memory that holds the bytes of one or more ``DataRegions/Region``s.
///
/// Filled once, by the code that created it, before it is wrapped in a ``DataRegions``; never
/// written after that, which is what makes sharing it between tasks safe (hence `@unchecked
/// Sendable`). Pooled memory goes back to its ``BufferPool`` when the last region using it goes away.
final class ByteStorage: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    private let pool: BufferPool?

    init(base: UnsafeMutableRawPointer, capacity: Int, pool: BufferPool?) {
        self.base = base
        self.capacity = capacity
        self.pool = pool
    }

    /// Memory of its own, freed when the storage goes away.
    convenience init(allocating capacity: Int) {
        self.init(base: .allocate(byteCount: capacity, alignment: 16), capacity: capacity, pool: nil)
    }

    /// A copy of `bytes`.
    convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(allocating: max(bytes.count, 1))
        if let source = bytes.baseAddress {
            base.copyMemory(from: source, byteCount: bytes.count)
        }
    }

    deinit {
        if let pool {
            pool.giveBack(base, capacity: capacity)
        } else {
            base.deallocate()
        }
    }

    /// The whole buffer, for filling before publication.
    var mutableBytes: UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(start: base, count: capacity)
    }

    func bytes(_ range: Range<Int>) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: base + range.lowerBound, count: range.count)
    }
}
