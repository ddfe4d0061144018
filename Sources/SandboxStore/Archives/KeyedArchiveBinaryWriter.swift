import Foundation

/// Writes a keyed archive's property list as a binary property list (`bplist00`), with its
/// references as UID objects (marker 0x8), as `NSKeyedArchiver` does. Foundation's
/// `PropertyListEncoder`, which writes the store's other binary lists, has no way to write a UID.
///
/// Equal strings, integers and data are stored once. Dictionary keys are written in sorted order,
/// so the same archive gives the same bytes on every run. The input is an archive this store
/// built (a few levels deep), so the walk may recurse.
enum KeyedArchiveBinaryWriter {
    /// A flattened object: its encoded bytes for a scalar, or its references for a container.
    private enum Node {
        case scalar([UInt8])
        case array([Int])
        case dictionary(keys: [Int], values: [Int])
    }

    private struct Flattener {
        var nodes: [Node] = []
        var scalars: [PreferenceValue: Int] = [:]

        mutating func add(_ value: PreferenceValue) -> Int {
            switch value {
            case .array(let elements):
                let index = reserve()
                nodes[index] = .array(elements.map { add($0) })
                return index
            case .dictionary(let entries):
                if entries.count == 1, case .integer(let uid)? = entries["CF$UID"], uid >= 0 {
                    return scalar(value, bytes: KeyedArchiveBinaryWriter.uid(UInt64(uid)))
                }
                let index = reserve()
                let sorted = entries.sorted { $0.key < $1.key }
                let keys = sorted.map { add(.string($0.key)) }
                nodes[index] = .dictionary(keys: keys, values: sorted.map { add($0.value) })
                return index
            default:
                return scalar(value, bytes: KeyedArchiveBinaryWriter.scalar(value))
            }
        }

        private mutating func reserve() -> Int {
            nodes.append(.array([]))
            return nodes.count - 1
        }

        private mutating func scalar(_ value: PreferenceValue, bytes: [UInt8]) -> Int {
            // Reals are not shared: 0.0 == -0.0 would lose the sign.
            if case .double = value {
                nodes.append(.scalar(bytes))
                return nodes.count - 1
            }
            if let index = scalars[value] { return index }
            nodes.append(.scalar(bytes))
            scalars[value] = nodes.count - 1
            return nodes.count - 1
        }
    }

    /// The binary property list of `value` (UIDs spelled `{"CF$UID": n}`).
    static func write(_ value: PreferenceValue) -> [UInt8] {
        var flattener = Flattener()
        let top = flattener.add(value)
        let nodes = flattener.nodes
        let referenceSize = byteCount(UInt64(nodes.count))
        var output = Array("bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(nodes.count)
        for node in nodes {
            offsets.append(output.count)
            switch node {
            case .scalar(let bytes):
                output += bytes
            case .array(let references):
                output += header(0xA, count: references.count)
                for reference in references { output += bigEndian(UInt64(reference), size: referenceSize) }
            case .dictionary(let keys, let values):
                output += header(0xD, count: keys.count)
                for reference in keys + values { output += bigEndian(UInt64(reference), size: referenceSize) }
            }
        }
        let tableOffset = output.count
        let offsetSize = byteCount(UInt64(tableOffset))
        for offset in offsets { output += bigEndian(UInt64(offset), size: offsetSize) }
        output += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        output += bigEndian(UInt64(nodes.count), size: 8)
        output += bigEndian(UInt64(top), size: 8)
        output += bigEndian(UInt64(tableOffset), size: 8)
        return output
    }

    /// The bytes of a value that holds no others.
    private static func scalar(_ value: PreferenceValue) -> [UInt8] {
        switch value {
        case .bool(let bool):
            return [bool ? 0x09 : 0x08]
        case .integer(let integer):
            if integer < 0 { return [0x13] + bigEndian(UInt64(bitPattern: Int64(integer)), size: 8) }
            let size = byteCount(UInt64(integer))
            return size == 8
                ? [0x13] + bigEndian(UInt64(integer), size: 8)
                : [0x10 | log2(size)] + bigEndian(UInt64(integer), size: size)
        case .unsignedInteger(let integer):
            return [0x14] + [UInt8](repeating: 0, count: 8) + bigEndian(integer, size: 8)
        case .double(let double):
            return [0x23] + bigEndian(double.bitPattern, size: 8)
        case .date(let date):
            return [0x33] + bigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8)
        case .data(let data):
            return header(0x4, count: data.count) + Array(data)
        case .string(let string):
            if string.utf8.allSatisfy({ $0 < 0x80 }) {
                return header(0x5, count: string.utf8.count) + Array(string.utf8)
            }
            let units = Array(string.utf16)
            return header(0x6, count: units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        case .array, .dictionary:
            preconditionFailure("containers are flattened, not written as scalars")
        }
    }

    /// A UID object: marker 0x8 with the size, then the index in 1, 2, 4 or 8 bytes.
    private static func uid(_ index: UInt64) -> [UInt8] {
        let size = byteCount(index)
        return [0x80 | UInt8(size - 1)] + bigEndian(index, size: size)
    }

    /// A marker with a count: in its low nibble below 15, else 0xF and an integer object.
    private static func header(_ type: UInt8, count: Int) -> [UInt8] {
        count < 15 ? [type << 4 | UInt8(count)] : [type << 4 | 0x0F] + scalar(.integer(count))
    }

    /// 1, 2, 4 or 8: the fewest bytes of those that hold `value`.
    private static func byteCount(_ value: UInt64) -> Int {
        value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
    }

    private static func log2(_ size: Int) -> UInt8 {
        size == 1 ? 0 : size == 2 ? 1 : size == 4 ? 2 : 3
    }

    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).reversed().map { UInt8(truncatingIfNeeded: value >> (8 * UInt64($0))) }
    }
}
