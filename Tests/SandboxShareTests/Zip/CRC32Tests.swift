import Testing

@testable import SandboxShare

@Suite struct CRC32Tests {
    @Test func knownValues() {
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
        #expect(CRC32.checksum([UInt8](repeating: 0, count: 32)) == 0x190A_55AD)
    }

    /// The sixteen-byte steps agree with the byte-at-a-time tail whatever the split and alignment.
    @Test func anySplitGivesTheSameChecksum() {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<1000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let whole = CRC32.checksum(bytes)
        var bytewise = CRC32()
        for byte in bytes { bytewise.update(CollectionOfOne(byte)) }
        #expect(bytewise.checksum == whole)
        for split in [1, 3, 7, 8, 9, 15, 16, 17, 500, 999] {
            var crc = CRC32()
            crc.update(bytes[..<split])
            crc.update(bytes[split...])
            #expect(crc.checksum == whole, "split at \(split)")
        }
    }
}
