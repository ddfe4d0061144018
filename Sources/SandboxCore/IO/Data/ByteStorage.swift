import Glibc

/// Memory that holds the bytes of one or more ``DataRegions/Region``s.
///
/// Filled once, by the code that created it, before it is wrapped in a ``DataRegions``; never
/// written after that, which is what makes sharing it between tasks safe (hence `@unchecked
/// Sendable`). Pooled memory goes back to its ``BufferPool`` when the last region using it goes away.
final class ByteStorage: @unchecked Sendable {
    let base: UnsafeMutableRawPointer
    let capacity: Int
    private let owner: Owner

    /// Who gives the memory back, and how.
    private enum Owner {
        case pool(BufferPool)
        case heap
        case mapping(length: Int)
    }

    /// Pooled memory, given back to `pool` when the storage goes away.
    init(base: UnsafeMutableRawPointer, capacity: Int, pool: BufferPool) {
        self.base = base
        self.capacity = capacity
        self.owner = .pool(pool)
    }

    private init(base: UnsafeMutableRawPointer, capacity: Int, owner: Owner) {
        self.base = base
        self.capacity = capacity
        self.owner = owner
    }

    /// From this size up, memory is an anonymous mapping populated at once.
    static let mappingThreshold = 8 << 20

    /// Memory of its own, freed when the storage goes away.
    ///
    /// A large buffer filled once (a whole file read into memory) costs more in page faults than in
    /// copying: one fault per 4 KiB page as the read first touches it. From ``mappingThreshold`` up,
    /// the memory is an anonymous mapping made with `MAP_POPULATE`, which the kernel fills in one
    /// pass instead; where that fails it comes from the heap. (`MADV_HUGEPAGE` was slower here:
    /// with `defrag=madvise` each huge-page fault may compact memory first.)
    convenience init(allocating capacity: Int) {
        if capacity >= Self.mappingThreshold {
            let page = Int(sysconf(Int32(_SC_PAGESIZE)))
            let length = (capacity + page - 1) / page * page
            let mapped = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0)
            if let mapped, mapped != MAP_FAILED {
                self.init(base: mapped, capacity: capacity, owner: .mapping(length: length))
                return
            }
        }
        self.init(base: .allocate(byteCount: capacity, alignment: 16), capacity: capacity, owner: .heap)
    }

    /// A copy of `bytes`.
    convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(allocating: max(bytes.count, 1))
        if let source = bytes.baseAddress {
            base.copyMemory(from: source, byteCount: bytes.count)
        }
    }

    deinit {
        switch owner {
        case .pool(let pool): pool.giveBack(base, capacity: capacity)
        case .heap: base.deallocate()
        case .mapping(let length): munmap(base, length)
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
