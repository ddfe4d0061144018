import Foundation

/// Reads a binary property list (`bplist00`) into a ``PreferenceValue``, keeping integers and
/// reals apart (Foundation's decoder reads a whole real as an integer) and reading unsigned
/// integers up to 2⁶⁴−1 (stored, as Apple and Python write them, as 16-byte integers) exactly.
///
/// Untrusted input: every integer from the file (sizes, counts, offsets, references) is checked
/// against the data as an unsigned 64-bit value before it becomes an index; a container that
/// contains itself is refused; and the value built is bounded by ``PropertyListLimits`` — bytes
/// produced, counted each time a shared object is referenced, and depth. The walk is iterative,
/// so no input reaches the stack.
struct BinaryPropertyListReader {
    private let bytes: [UInt8]
    private let offsetSize: Int
    private let referenceSize: Int
    private let objectCount: UInt64
    private let offsetTable: Int
    private let top: UInt64
    private let limits: PropertyListLimits
    private let readsUIDs: Bool

    /// Reads and checks the trailer.
    ///
    /// - Parameter readsUIDs: whether UID objects (0x8, keyed archives' references) are read, as
    ///   the one-key dictionary `{"CF$UID": n}` an XML property list spells them with; refused
    ///   otherwise.
    init(
        _ bytes: [UInt8], limits: PropertyListLimits = .default, readsUIDs: Bool = false
    ) throws(PropertyListReadFailure) {
        guard bytes.count >= 8 + 32, bytes.starts(with: Array("bplist00".utf8)) else {
            throw .malformed("too short for a binary property list, or no 'bplist00' header")
        }
        self.bytes = bytes
        self.limits = limits
        self.readsUIDs = readsUIDs
        let trailer = bytes.count - 32
        offsetSize = Int(bytes[trailer + 6])
        referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw .malformed("the trailer's integer sizes are out of range")
        }
        let count = Self.bigEndian(bytes, at: trailer + 8, size: 8)
        top = Self.bigEndian(bytes, at: trailer + 16, size: 8)
        let table = Self.bigEndian(bytes, at: trailer + 24, size: 8)
        // Each comparison is made on UInt64 values already known to be small, so none overflows.
        guard count > 0, count <= UInt64(trailer), table >= 8, table < UInt64(trailer),
            UInt64(trailer) - table >= count * UInt64(offsetSize)
        else {
            throw .malformed("the trailer's object count or offset table is out of range")
        }
        guard top < count else { throw .malformed("the top object is out of range") }
        objectCount = count
        offsetTable = Int(table)
    }

    /// A container being read: where its references are and how far the walk has come.
    private struct Cursor {
        var object: Int
        var references: Int
        var count: Int
        var position = 0
        var isDictionary: Bool
    }

    /// The top object.
    func read() throws(PropertyListReadFailure) -> PreferenceValue {
        var assembler = PropertyListAssembler(limits: limits)
        var cursors: [Cursor] = []
        var open = Set<Int>()  // the containers being read: a reference to one is a cycle
        var next = try checked(top)
        while true {
            if let cursor = try readObject(next, into: &assembler, open: open) {
                open.insert(cursor.object)
                cursors.append(cursor)
            }
            // Find the next reference to follow, closing finished containers on the way.
            while let cursor = cursors.last, cursor.position == cursor.count {
                try assembler.close()
                open.remove(cursor.object)
                cursors.removeLast()
            }
            guard let cursor = cursors.last else { return try assembler.finish() }
            let position = cursor.position
            cursors[cursors.count - 1].position += 1
            if cursor.isDictionary {
                try assembler.key(try key(at: cursor.references + position * referenceSize))
                next = try reference(at: cursor.references + (cursor.count + position) * referenceSize)
            } else {
                next = try reference(at: cursor.references + position * referenceSize)
            }
        }
    }

    /// Reads object `index`: a scalar is added at once; an empty container is opened and closed;
    /// any other container is opened and returned for its elements to be read.
    private func readObject(
        _ index: Int, into assembler: inout PropertyListAssembler, open: Set<Int>
    ) throws(PropertyListReadFailure) -> Cursor? {
        let offset = try offset(of: index)
        let marker = bytes[offset]
        switch marker >> 4 {
        case 0xA, 0xD:
            guard !open.contains(index) else { throw .malformed("an array or dictionary contains itself") }
            let isDictionary = marker >> 4 == 0xD
            let (count, start) = try length(at: offset)
            try require(start, count, times: isDictionary ? 2 * referenceSize : referenceSize)
            if isDictionary { try assembler.openDictionary() } else { try assembler.openArray() }
            guard count > 0 else {
                try assembler.close()
                return nil
            }
            return Cursor(object: index, references: start, count: count, isDictionary: isDictionary)
        default:
            let (value, payload) = try scalar(at: offset)
            try assembler.add(value, payload: payload)
            return nil
        }
    }

    /// A value that holds no others, and its payload in bytes.
    private func scalar(at offset: Int) throws(PropertyListReadFailure) -> (PreferenceValue, Int) {
        let marker = bytes[offset]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x08: return (.bool(false), 0)
            case 0x09: return (.bool(true), 0)
            default:
                throw .malformed("null and fill objects (0x\(Hex.string(of: marker))) have no property-list value")
            }
        case 0x1:
            return (try integer(at: offset), 0)
        case 0x2:
            guard low == 2 || low == 3 else { throw .malformed("a real of an unknown size") }
            let size = 1 << low
            try require(offset + 1, size)
            let raw = Self.bigEndian(bytes, at: offset + 1, size: size)
            return (.double(size == 4 ? Double(Float(bitPattern: UInt32(raw))) : Double(bitPattern: raw)), 0)
        case 0x3:
            guard marker == 0x33 else { throw .malformed("a date of an unknown size") }
            try require(offset + 1, 8)
            return (
                .date(
                    Date(
                        timeIntervalSinceReferenceDate: Double(
                            bitPattern: Self.bigEndian(bytes, at: offset + 1, size: 8)))), 0
            )
        case 0x4:
            let (count, start) = try length(at: offset)
            try require(start, count)
            return (.data(Data(bytes[start..<start + count])), count)
        case 0x5, 0x6:
            let string = try self.string(at: offset)
            return (.string(string), string.utf8.count)
        case 0x8 where readsUIDs:
            guard low < 8 else { throw .malformed("a UID of more than 8 bytes") }
            try require(offset + 1, low + 1)
            let raw = Self.bigEndian(bytes, at: offset + 1, size: low + 1)
            guard raw <= UInt64(Int.max) else { throw .malformed("a UID out of range") }
            return (.dictionary(["CF$UID": .integer(Int(raw))]), 8)
        default:
            throw .malformed(
                "an object of a type this reader does not take (marker 0x\(Hex.string(of: marker)); sets and UIDs are not property-list values)"
            )
        }
    }

    /// A string object: ASCII (0x5) or big-endian UTF-16 (0x6).
    private func string(at offset: Int) throws(PropertyListReadFailure) -> String {
        let (count, start) = try length(at: offset)
        if bytes[offset] >> 4 == 0x5 {
            try require(start, count)
            guard let string = String(bytes: bytes[start..<start + count], encoding: .ascii) else {
                throw .malformed("an ASCII string holds non-ASCII bytes")
            }
            return string
        }
        try require(start, count, times: 2)
        let units = (0..<count).map { UInt16(bytes[start + 2 * $0]) << 8 | UInt16(bytes[start + 2 * $0 + 1]) }
        return String(decoding: units, as: UTF16.self)
    }

    /// The string a dictionary's key reference at `position` names.
    private func key(at position: Int) throws(PropertyListReadFailure) -> String {
        let offset = try offset(of: try reference(at: position))
        guard bytes[offset] >> 4 == 0x5 || bytes[offset] >> 4 == 0x6 else {
            throw .malformed("a dictionary key is not a string")
        }
        return try string(at: offset)
    }

    /// An integer object: 1, 2 and 4 bytes are unsigned, 8 bytes signed, 16 bytes signed 128-bit
    /// (read when the value fits −2⁶³…2⁶⁴−1).
    private func integer(at offset: Int) throws(PropertyListReadFailure) -> PreferenceValue {
        let low = Int(bytes[offset] & 0x0F)
        guard low <= 4 else { throw .malformed("an integer of an unknown size") }
        let size = 1 << low
        try require(offset + 1, size)
        if size == 16 {
            let high = Self.bigEndian(bytes, at: offset + 1, size: 8)
            let value = Self.bigEndian(bytes, at: offset + 9, size: 8)
            if high == 0 { return PreferenceValue(value) }
            guard high == .max, value >= 1 << 63 else { throw .malformed("an integer that does not fit in 64 bits") }
            return .integer(Int(Int64(bitPattern: value)))
        }
        let raw = Self.bigEndian(bytes, at: offset + 1, size: size)
        return size == 8 ? .integer(Int(Int64(bitPattern: raw))) : .integer(Int(raw))
    }

    /// The count in a marker's low nibble, or in the integer object that follows when it is 0xF,
    /// and where the contents start.
    private func length(at offset: Int) throws(PropertyListReadFailure) -> (count: Int, start: Int) {
        let low = Int(bytes[offset] & 0x0F)
        if low != 0x0F { return (low, offset + 1) }
        try require(offset + 1, 1)
        guard bytes[offset + 1] >> 4 == 0x1 else { throw .malformed("a length is not an integer") }
        let size = 1 << Int(bytes[offset + 1] & 0x0F)
        guard case .integer(let count) = try integer(at: offset + 1), count >= 0, count <= offsetTable else {
            throw .malformed("a length is out of range")
        }
        return (count, offset + 2 + size)
    }

    /// The reference stored at `position`, checked against the object count.
    private func reference(at position: Int) throws(PropertyListReadFailure) -> Int {
        try checked(Self.bigEndian(bytes, at: position, size: referenceSize))
    }

    private func checked(_ reference: UInt64) throws(PropertyListReadFailure) -> Int {
        guard reference < objectCount else { throw .malformed("a reference (\(reference)) is out of range") }
        return Int(reference)
    }

    /// Where object `index` (already checked) starts, checked to lie before the offset table.
    private func offset(of index: Int) throws(PropertyListReadFailure) -> Int {
        let offset = Self.bigEndian(bytes, at: offsetTable + index * offsetSize, size: offsetSize)
        guard offset >= 8, offset < UInt64(offsetTable) else {
            throw .malformed("an object's offset (\(offset)) is out of range")
        }
        return Int(offset)
    }

    /// Refuses a read of `count` items of `size` bytes at `start` that would run into the offset
    /// table. `start` is within the data; `count` is at most the data's size.
    private func require(_ start: Int, _ count: Int, times size: Int = 1) throws(PropertyListReadFailure) {
        guard count >= 0, start <= offsetTable, count <= (offsetTable - start) / size else {
            throw .malformed("an object runs past the end of its data")
        }
    }

    private static func bigEndian(_ bytes: [UInt8], at position: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in position..<position + size { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
