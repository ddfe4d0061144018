/// Builds binary property lists object by object, for tests that play the attacker: every size,
/// count, offset and reference is whatever the test says.
struct BinaryPlistBuilder {
    var referenceSize = 2
    var offsetSize = 4
    private(set) var objects: [[UInt8]] = []

    /// Adds an object's encoded bytes; returns its index.
    @discardableResult
    mutating func add(_ bytes: [UInt8]) -> UInt64 {
        objects.append(bytes)
        return UInt64(objects.count - 1)
    }

    /// An array of `references`.
    @discardableResult
    mutating func addArray(_ references: [UInt64]) -> UInt64 {
        add(Self.marker(0xA, count: references.count) + references.flatMap { Self.bigEndian($0, size: referenceSize) })
    }

    /// A data object of `bytes`.
    @discardableResult
    mutating func addData(_ bytes: [UInt8]) -> UInt64 {
        add(Self.marker(0x4, count: bytes.count) + bytes)
    }

    /// The file: header, objects, offset table (or `offsets` as given), trailer.
    func build(top: UInt64, offsets given: [UInt64]? = nil, objectCount: UInt64? = nil) -> [UInt8] {
        var bytes = Array("bplist00".utf8)
        var offsets: [UInt64] = []
        for object in objects {
            offsets.append(UInt64(bytes.count))
            bytes += object
        }
        let table = UInt64(bytes.count)
        for offset in given ?? offsets { bytes += Self.bigEndian(offset, size: offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        bytes += Self.bigEndian(objectCount ?? UInt64(objects.count), size: 8)
        bytes += Self.bigEndian(top, size: 8)
        bytes += Self.bigEndian(table, size: 8)
        return bytes
    }

    static func marker(_ type: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [type << 4 | UInt8(count)] : [type << 4 | 0xF, 0x13] + bigEndian(UInt64(count), size: 8)
    }

    static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(size - 1 - $0))) }
    }
}

extension Array where Element == UInt8 {
    init(hex: String) {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16) ?? 0)
            index = next
        }
        self = bytes
    }
}
