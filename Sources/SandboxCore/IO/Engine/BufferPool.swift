import Synchronization

/// Buffers kept for reuse, so that I/O does not pay page faults on fresh memory.
///
/// Freshly allocated memory costs a page fault per 4 KiB on first touch (1.3–2.1 s per GiB on this
/// project's VMs), which is what makes `DispatchIO` and `Data(contentsOf:)` read at a tenth of `dd`.
/// Buffers come in power-of-two sizes from 4 KiB to ``maximumPooledSize``; each size keeps a few
/// spare buffers, up to ``cacheLimit`` bytes in all. Larger requests get memory of their own.
final class BufferPool: Sendable {
    static let smallestSize = 4096

    let maximumPooledSize: Int
    let cacheLimit: Int
    private let spare: Mutex<Spare>

    /// A spare buffer's address. Only the pool holds it, under its lock, so it may cross threads.
    private struct SpareBuffer: @unchecked Sendable {
        let base: UnsafeMutableRawPointer
    }

    /// The spare buffers by size class: index 0 holds 4 KiB buffers, index 1 8 KiB, and so on (an
    /// array, not a dictionary: hashing the size was a visible part of a 4 KiB read's cost).
    private struct Spare {
        var bySize: [[SpareBuffer]]
        var cachedBytes = 0
    }

    init(maximumPooledSize: Int = 1 << 20, cacheLimit: Int = 32 << 20) {
        self.maximumPooledSize = max(Self.smallestSize, maximumPooledSize)
        self.cacheLimit = cacheLimit
        // One list per size class up to the largest that fits in `maximumPooledSize`.
        let largest = 1 << (Int.bitWidth - 1 - self.maximumPooledSize.leadingZeroBitCount)
        spare = Mutex(Spare(bySize: Array(repeating: [], count: Self.index(of: largest) + 1)))
    }

    deinit {
        spare.withLock { spare in
            for pointers in spare.bySize {
                for pointer in pointers { pointer.base.deallocate() }
            }
        }
    }

    /// Storage of at least `minimumCapacity` bytes, from the pool when it has a spare buffer.
    func take(minimumCapacity: Int) -> ByteStorage {
        let size = Self.sizeClass(for: minimumCapacity)
        guard size <= maximumPooledSize else {
            return ByteStorage(allocating: max(minimumCapacity, 1))
        }
        let index = Self.index(of: size)
        let reused = spare.withLock { spare -> SpareBuffer? in
            guard let pointer = spare.bySize[index].popLast() else { return nil }
            spare.cachedBytes -= size
            return pointer
        }
        let base = reused?.base ?? UnsafeMutableRawPointer.allocate(byteCount: size, alignment: Self.smallestSize)
        return ByteStorage(base: base, capacity: size, pool: self)
    }

    /// Takes back a buffer from a ``ByteStorage`` that went away; frees it when the pool is full.
    func giveBack(_ base: UnsafeMutableRawPointer, capacity: Int) {
        let buffer = SpareBuffer(base: base)
        let index = Self.index(of: capacity)
        let kept = spare.withLock { spare -> Bool in
            guard index < spare.bySize.count, spare.cachedBytes + capacity <= cacheLimit else { return false }
            spare.bySize[index].append(buffer)
            spare.cachedBytes += capacity
            return true
        }
        if !kept { base.deallocate() }
    }

    /// Bytes held in spare buffers now.
    var cachedBytes: Int { spare.withLock { $0.cachedBytes } }

    /// The position of size class `size` (a power of two from ``smallestSize``) in the spare lists.
    private static func index(of size: Int) -> Int {
        size.trailingZeroBitCount - smallestSize.trailingZeroBitCount
    }

    static func sizeClass(for count: Int) -> Int {
        guard count > smallestSize else { return smallestSize }
        return 1 << (Int.bitWidth - (count - 1).leadingZeroBitCount)
    }
}
