extension DataRegions: Sequence {
    /// Iterates the bytes across regions.
    public struct Iterator: IteratorProtocol {
        private let regions: [Region]
        private var regionIndex = 0
        private var offset = 0

        init(_ regions: [Region]) {
            self.regions = regions
        }

        /// The next byte, `nil` after the last.
        public mutating func next() -> UInt8? {
            while regionIndex < regions.count {
                let region = regions[regionIndex]
                if offset < region.count {
                    defer { offset += 1 }
                    return region.storage.base.load(fromByteOffset: region.range.lowerBound + offset, as: UInt8.self)
                }
                regionIndex += 1
                offset = 0
            }
            return nil
        }
    }

    /// An iterator over the bytes, region after region.
    public func makeIterator() -> Iterator { Iterator(regions) }

    /// The number of bytes, exactly: iterating visits them all.
    public var underestimatedCount: Int { count }
}

extension DataRegions: Equatable {
    /// Whether the bytes are equal, however they are split into regions.
    public static func == (lhs: DataRegions, rhs: DataRegions) -> Bool {
        guard lhs.count == rhs.count else { return false }
        var left = lhs.makeIterator()
        var right = rhs.makeIterator()
        while let byte = left.next() {
            guard byte == right.next() else { return false }
        }
        return true
    }
}

extension DataRegions: CustomStringConvertible {
    /// The byte count and the number of regions, e.g. `3145728 bytes in 3 regions`.
    public var description: String {
        "\(count) bytes in \(regions.count) region\(regions.count == 1 ? "" : "s")"
    }
}

extension DataRegions: ExpressibleByArrayLiteral {
    /// A copy of the listed bytes, e.g. `[1, 2, 3]`.
    public init(arrayLiteral elements: UInt8...) {
        self.init(elements)
    }
}
