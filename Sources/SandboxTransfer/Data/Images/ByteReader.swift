/// Bounds-checked reads of big- and little-endian integers from untrusted bytes: every read past
/// the end gives `nil`. Valid only inside the `withUnsafeBytes` closure that made it.
struct ByteReader {
    let bytes: UnsafeRawBufferPointer

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var count: Int { bytes.count }

    /// `width` bytes at `offset` as an unsigned integer, most significant first unless `littleEndian`.
    private func integer(at offset: Int, width: Int, littleEndian: Bool) -> UInt64? {
        guard offset >= 0, width <= bytes.count, offset <= bytes.count - width else { return nil }
        var value: UInt64 = 0
        for index in 0..<width {
            value = value << 8 | UInt64(bytes[offset + (littleEndian ? width - 1 - index : index)])
        }
        return value
    }

    func uint8(at offset: Int) -> Int? { integer(at: offset, width: 1, littleEndian: false).map { Int($0) } }
    func uint16(bigEndianAt offset: Int) -> Int? {
        integer(at: offset, width: 2, littleEndian: false).map { Int($0) }
    }
    func uint16(littleEndianAt offset: Int) -> Int? {
        integer(at: offset, width: 2, littleEndian: true).map { Int($0) }
    }
    func uint24(littleEndianAt offset: Int) -> Int? {
        integer(at: offset, width: 3, littleEndian: true).map { Int($0) }
    }
    func uint24(bigEndianAt offset: Int) -> Int? {
        integer(at: offset, width: 3, littleEndian: false).map { Int($0) }
    }
    func uint32(bigEndianAt offset: Int) -> Int? {
        integer(at: offset, width: 4, littleEndian: false).map { Int($0) }
    }
    func uint32(littleEndianAt offset: Int) -> Int? {
        integer(at: offset, width: 4, littleEndian: true).map { Int($0) }
    }
    func uint64(bigEndianAt offset: Int) -> UInt64? { integer(at: offset, width: 8, littleEndian: false) }

    /// Whether the bytes at `offset` are `expected`.
    func matches(_ expected: some Collection<UInt8>, at offset: Int) -> Bool {
        guard offset >= 0, expected.count <= bytes.count, offset <= bytes.count - expected.count else { return false }
        return bytes[offset..<offset + expected.count].elementsEqual(expected)
    }

    /// Whether the bytes at `offset` are the ASCII text `text` (a four-character code, a signature).
    func matches(ascii text: String, at offset: Int) -> Bool { matches(text.utf8, at: offset) }

    /// The four bytes at `offset` as ASCII text, `nil` past the end.
    func fourCC(at offset: Int) -> String? {
        guard matches([], at: offset), offset <= bytes.count - 4 else { return nil }
        return String(decoding: bytes[offset..<offset + 4], as: Unicode.ASCII.self)
    }
}
