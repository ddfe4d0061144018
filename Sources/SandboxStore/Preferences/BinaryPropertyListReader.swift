import Foundation

/// Reads a binary property list (`bplist00`) into ``PreferenceValue``s, keeping integers and reals
/// apart (Foundation's decoder reads a whole real as an integer).
///
/// Every offset, count and reference is checked against the data, references may not form a
/// cycle, and nesting is limited, so damaged input is a thrown error, never a crash.
struct BinaryPropertyListReader {
    /// Deeper nesting than this is refused (preferences are shallow; a stack is not).
    static let maximumDepth = 512

    struct Malformed: Error, CustomStringConvertible {
        var description: String
    }

    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: Int
    private let offsetTable: Int

    /// Reads the trailer.
    init(_ bytes: [UInt8]) throws(Malformed) {
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist00".utf8)) else {
            throw Malformed(description: "too short for a binary property list, or no 'bplist00' header")
        }
        self.bytes = bytes
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        let count = Self.bigEndian(bytes, at: trailer + 8, size: 8)
        let table = Self.bigEndian(bytes, at: trailer + 24, size: 8)
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw Malformed(description: "the trailer's integer sizes are out of range")
        }
        guard count > 0, count <= UInt64(bytes.count), table >= 8, table < UInt64(trailer),
            UInt64(trailer) - table >= count * UInt64(offsetSize)
        else {
            throw Malformed(description: "the trailer's object count or offset table is out of range")
        }
        objectCount = Int(count)
        offsetTable = Int(table)
    }

    /// The top object.
    func read() throws(Malformed) -> PreferenceValue {
        let top = Self.bigEndian(bytes, at: bytes.count - 32 + 16, size: 8)
        guard top < UInt64(objectCount) else { throw Malformed(description: "the top object is out of range") }
        var walk = Walk(budget: 16 * bytes.count)
        return try object(Int(top), depth: 0, walk: &walk)
    }

    /// The objects being read (to refuse cycles) and how many more may be read: shared objects
    /// are expanded, so a small file could otherwise describe an enormous value.
    private struct Walk {
        var visiting = Set<Int>()
        var budget: Int
    }

    private func object(_ index: Int, depth: Int, walk: inout Walk) throws(Malformed) -> PreferenceValue {
        guard depth < Self.maximumDepth else { throw Malformed(description: "nested more than \(Self.maximumDepth) levels deep") }
        walk.budget -= 1
        guard walk.budget >= 0 else { throw Malformed(description: "it expands to far more values than its size allows") }
        guard index < objectCount else { throw Malformed(description: "a reference is out of range") }
        let offset = Int(Self.bigEndian(bytes, at: offsetTable + index * offsetSize, size: offsetSize))
        guard offset >= 8, offset < offsetTable else { throw Malformed(description: "an object's offset is out of range") }
        let marker = bytes[offset]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw Malformed(description: "null and fill objects have no preference value")
            }
        case 0x1:
            return .integer(try integer(at: offset))
        case 0x2:
            guard low == 2 || low == 3 else { throw Malformed(description: "a real of an unknown size") }
            let size = 1 << low
            try require(offset + 1, size)
            let raw = Self.bigEndian(bytes, at: offset + 1, size: size)
            return .double(size == 4 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw))
        case 0x3:
            guard marker == 0x33 else { throw Malformed(description: "a date of an unknown size") }
            try require(offset + 1, 8)
            return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: Self.bigEndian(bytes, at: offset + 1, size: 8))))
        case 0x4:
            let (count, start) = try length(at: offset)
            try require(start, count)
            return .data(Data(bytes[start..<start + count]))
        case 0x5:
            let (count, start) = try length(at: offset)
            try require(start, count)
            guard let string = String(bytes: bytes[start..<start + count], encoding: .ascii) else {
                throw Malformed(description: "an ASCII string holds non-ASCII bytes")
            }
            return .string(string)
        case 0x6:
            let (count, start) = try length(at: offset)
            guard count <= bytes.count else { throw Malformed(description: "a string's length is out of range") }
            try require(start, count * 2)
            let units = (0..<count).map { UInt16(bytes[start + 2 * $0]) << 8 | UInt16(bytes[start + 2 * $0 + 1]) }
            return .string(String(decoding: units, as: UTF16.self))
        case 0xA:
            let (count, start) = try length(at: offset)
            try require(start, count * referenceSize)
            guard walk.visiting.insert(index).inserted else { throw Malformed(description: "an array contains itself") }
            defer { walk.visiting.remove(index) }
            var values: [PreferenceValue] = []
            values.reserveCapacity(count)
            for position in 0..<count {
                values.append(try object(reference(at: start + position * referenceSize), depth: depth + 1, walk: &walk))
            }
            return .array(values)
        case 0xD:
            let (count, start) = try length(at: offset)
            try require(start, 2 * count * referenceSize)
            guard walk.visiting.insert(index).inserted else { throw Malformed(description: "a dictionary contains itself") }
            defer { walk.visiting.remove(index) }
            var values: [String: PreferenceValue] = [:]
            values.reserveCapacity(count)
            for position in 0..<count {
                guard case .string(let key) = try object(reference(at: start + position * referenceSize), depth: depth + 1, walk: &walk) else {
                    throw Malformed(description: "a dictionary key is not a string")
                }
                values[key] = try object(reference(at: start + (count + position) * referenceSize), depth: depth + 1, walk: &walk)
            }
            return .dictionary(values)
        default:
            throw Malformed(description: "an object of unknown type 0x\(String(marker, radix: 16))")
        }
    }

    /// An integer object: 1, 2 and 4 bytes are unsigned, 8 bytes signed, 16 bytes only when the
    /// value fits 64 bits.
    private func integer(at offset: Int) throws(Malformed) -> Int {
        let low = Int(bytes[offset] & 0x0F)
        guard low <= 4 else { throw Malformed(description: "an integer of an unknown size") }
        let size = 1 << low
        try require(offset + 1, size)
        if size == 16 {
            let high = Self.bigEndian(bytes, at: offset + 1, size: 8)
            let value = Self.bigEndian(bytes, at: offset + 9, size: 8)
            guard high == 0, value <= UInt64(Int.max) else { throw Malformed(description: "an integer larger than 64 bits") }
            return Int(value)
        }
        let raw = Self.bigEndian(bytes, at: offset + 1, size: size)
        return size == 8 ? Int(Int64(bitPattern: raw)) : Int(raw)
    }

    /// The count in a marker's low nibble, or in the integer object that follows when it is 0xF.
    private func length(at offset: Int) throws(Malformed) -> (count: Int, start: Int) {
        let low = Int(bytes[offset] & 0x0F)
        if low != 0x0F { return (low, offset + 1) }
        try require(offset + 1, 1)
        guard bytes[offset + 1] >> 4 == 0x1 else { throw Malformed(description: "a length is not an integer") }
        let count = try integer(at: offset + 1)
        guard count >= 0, count <= bytes.count * 8 else { throw Malformed(description: "a length is out of range") }
        return (count, offset + 2 + (1 << Int(bytes[offset + 1] & 0x0F)))
    }

    private func reference(at position: Int) -> Int {
        Int(truncatingIfNeeded: Self.bigEndian(bytes, at: position, size: referenceSize))
    }

    /// Refuses a read of `count` bytes at `start` that would run into the offset table.
    private func require(_ start: Int, _ count: Int) throws(Malformed) {
        guard count >= 0, start <= offsetTable, count <= offsetTable - start else {
            throw Malformed(description: "an object runs past the end of the data")
        }
    }

    private static func bigEndian(_ bytes: [UInt8], at position: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in position..<position + size { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
