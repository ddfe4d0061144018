/// Bytes made of one or more regions of memory: the `dispatch_data_t` of this library.
///
/// Appending one value to another, or taking a slice, shares the regions instead of copying the
/// bytes. Code that needs one contiguous buffer asks for it (``withContiguousBytes(_:)``, which copies
/// only when there is more than one region); code that can work region by region iterates
/// ``regions`` or calls ``forEachRegion(_:)`` (the role of `dispatch_data_apply`). Channels and
/// streams deliver their data as `DataRegions`, and writes hand the regions to `writev(2)` as they
/// are, with no intermediate buffer.
///
/// A value type: the memory beneath is immutable and reference-counted, so copies are cheap and
/// safe to send between tasks.
public struct DataRegions: Sendable {
    /// One contiguous run of bytes.
    public struct Region: Sendable {
        let storage: ByteStorage
        let range: Range<Int>

        init(storage: ByteStorage, range: Range<Int>) {
            precondition(range.lowerBound >= 0 && range.upperBound <= storage.capacity, "region outside its storage")
            self.storage = storage
            self.range = range
        }

        /// The number of bytes.
        public var count: Int { range.count }

        /// Calls `body` with the region's bytes, which are valid only during the call.
        public func withUnsafeBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
            try body(storage.bytes(range))
        }

        /// The region's bytes, copied into an array.
        public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }

        func slice(_ bounds: Range<Int>) -> Region {
            Region(
                storage: storage, range: (range.lowerBound + bounds.lowerBound)..<(range.lowerBound + bounds.upperBound)
            )
        }
    }

    /// The regions, in order; empty regions are never stored.
    public private(set) var regions: [Region]
    /// The total number of bytes.
    public private(set) var count: Int

    /// No bytes.
    public init() {
        regions = []
        count = 0
    }

    /// A copy of `bytes` in one region.
    public init(_ bytes: some Sequence<UInt8>) {
        let array = Array(bytes)
        self = array.withUnsafeBytes { DataRegions(copying: $0) }
    }

    /// A copy of the memory at `bytes` in one region.
    public init(copying bytes: UnsafeRawBufferPointer) {
        self.init()
        guard bytes.count > 0 else { return }
        append(Region(storage: ByteStorage(copying: bytes), range: 0..<bytes.count))
    }

    /// The first `count` bytes of `storage`.
    init(storage: ByteStorage, count: Int) {
        self.init()
        if count > 0 { append(Region(storage: storage, range: 0..<count)) }
    }

    /// Whether there are no bytes.
    public var isEmpty: Bool { count == 0 }

    /// Appends the regions of `other`, without copying bytes.
    public mutating func append(_ other: DataRegions) {
        regions.append(contentsOf: other.regions)
        count += other.count
    }

    mutating func append(_ region: Region) {
        guard region.count > 0 else { return }
        regions.append(region)
        count += region.count
    }

    /// The concatenation of `lhs` and `rhs`, without copying bytes
    /// (`dispatch_data_create_concat`).
    public static func + (lhs: DataRegions, rhs: DataRegions) -> DataRegions {
        var result = lhs
        result.append(rhs)
        return result
    }

    /// The bytes in `bounds`, sharing this value's memory (`dispatch_data_create_subrange`).
    ///
    /// - Precondition: `bounds` lies within `0...count`: a range outside is a programmer error and
    ///   traps, as an out-of-range array slice does.
    public func slice(_ bounds: Range<Int>) -> DataRegions {
        precondition(bounds.lowerBound >= 0 && bounds.upperBound <= count, "slice \(bounds) outside 0..<\(count)")
        var result = DataRegions()
        var start = 0
        for region in regions {
            let end = start + region.count
            defer { start = end }
            guard end > bounds.lowerBound else { continue }
            guard start < bounds.upperBound else { break }
            let lower = Swift.max(bounds.lowerBound, start) - start
            let upper = Swift.min(bounds.upperBound, end) - start
            result.append(region.slice(lower..<upper))
        }
        return result
    }

    /// Calls `body` with each region's bytes and its offset in the whole, in order, until `body`
    /// returns `false` (`dispatch_data_apply`).
    ///
    /// - Returns: whether every region was visited.
    @discardableResult
    public func forEachRegion<E: Error>(
        _ body: (UnsafeRawBufferPointer, _ offset: Int) throws(E) -> Bool
    ) throws(E) -> Bool {
        var offset = 0
        for region in regions {
            let proceed = try region.withUnsafeBytes { bytes throws(E) in try body(bytes, offset) }
            guard proceed else { return false }
            offset += region.count
        }
        return true
    }

    /// Calls `body` with all the bytes in one buffer (`dispatch_data_create_map`), valid only during
    /// the call. Copies only when there is more than one region.
    public func withContiguousBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        switch regions.count {
        case 0: return try body(UnsafeRawBufferPointer(start: nil, count: 0))
        case 1: return try regions[0].withUnsafeBytes(body)
        default: return try contiguous().regions[0].withUnsafeBytes(body)
        }
    }

    /// The same bytes in at most one region: `self` when it already is, a copy otherwise.
    public func contiguous() -> DataRegions {
        guard regions.count > 1 else { return self }
        let storage = ByteStorage(allocating: count)
        forEachRegion { bytes, offset in
            if let source = bytes.baseAddress {
                (storage.base + offset).copyMemory(from: source, byteCount: bytes.count)
            }
            return true
        }
        return DataRegions(storage: storage, count: count)
    }

    /// The bytes, copied into an array.
    public var bytes: [UInt8] {
        var result = [UInt8]()
        result.reserveCapacity(count)
        forEachRegion { bytes, _ in
            result.append(contentsOf: bytes)
            return true
        }
        return result
    }
}
