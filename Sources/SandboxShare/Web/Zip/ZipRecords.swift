/// The byte layout of ZIP's records (PKWARE APPNOTE 6.3.10), little-endian throughout. Only
/// ``ZipStreamEncoder`` uses these; it decides what goes in them.
enum ZipRecords {
    /// Sizes and offsets this large or larger do not fit a 32-bit field: it holds 0xFFFFFFFF and
    /// the value moves to a ZIP64 extra field.
    static let limit32: UInt64 = 0xFFFF_FFFF
    /// General purpose bit 3: checksum and sizes follow the data, in a data descriptor.
    static let dataDescriptorFlag: UInt16 = 1 << 3
    /// Version made by: Unix (3) in the high byte, APPNOTE 6.3 in the low one.
    static let versionMadeBy: UInt16 = 3 << 8 | 63
    /// Version needed to extract: 2.0 (folders, data descriptors), 4.5 with ZIP64.
    static let version20: UInt16 = 20
    static let version45: UInt16 = 45

    /// A local file header (§4.3.7), stored (method 0). With bit 3 its checksum and sizes are
    /// zero; `zip64` sets both sizes to 0xFFFFFFFF and adds a ZIP64 extra field (§4.5.3: a local
    /// header's must hold both sizes; zero here, the data descriptor has them).
    static func localHeader(name: ZipName, flags: UInt16, modified: DOSDateTime, zip64: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(30 + name.bytes.count + (zip64 ? 20 : 0))
        bytes.appendLittleEndian(UInt32(0x0403_4b50))
        bytes.appendLittleEndian(zip64 ? version45 : version20)
        bytes.appendLittleEndian(flags)
        bytes.appendLittleEndian(UInt16(0))  // stored
        bytes.appendLittleEndian(modified.time)
        bytes.appendLittleEndian(modified.date)
        bytes.appendLittleEndian(UInt32(0))  // CRC-32: in the data descriptor
        bytes.appendLittleEndian(zip64 ? UInt32(limit32) : 0)  // compressed size
        bytes.appendLittleEndian(zip64 ? UInt32(limit32) : 0)  // uncompressed size
        bytes.appendLittleEndian(UInt16(name.bytes.count))
        bytes.appendLittleEndian(UInt16(zip64 ? 20 : 0))
        bytes.append(contentsOf: name.bytes)
        if zip64 {
            bytes.appendLittleEndian(UInt16(0x0001))
            bytes.appendLittleEndian(UInt16(16))
            bytes.appendLittleEndian(UInt64(0))  // uncompressed size
            bytes.appendLittleEndian(UInt64(0))  // compressed size
        }
        return bytes
    }

    /// A data descriptor (§4.3.9), with its optional signature; 8-byte sizes after a ZIP64 local
    /// header.
    static func dataDescriptor(crc: UInt32, size: UInt64, zip64: Bool) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        bytes.appendLittleEndian(UInt32(0x0807_4b50))
        bytes.appendLittleEndian(crc)
        if zip64 {
            bytes.appendLittleEndian(size)  // compressed
            bytes.appendLittleEndian(size)  // uncompressed
        } else {
            bytes.appendLittleEndian(UInt32(size))
            bytes.appendLittleEndian(UInt32(size))
        }
        return bytes
    }

    /// A central directory file header (§4.3.12), with a ZIP64 extra field holding whichever of
    /// the sizes and the offset do not fit 32 bits, in the order §4.5.3 sets.
    static func appendCentralHeader(
        to bytes: inout [UInt8], name: ZipName, flags: UInt16, modified: DOSDateTime, crc: UInt32, size: UInt64,
        headerOffset: UInt64, externalAttributes: UInt32, localZip64: Bool
    ) {
        let bigSize = size >= limit32
        let bigOffset = headerOffset >= limit32
        var extra: [UInt8] = []
        if bigSize || bigOffset {
            extra.appendLittleEndian(UInt16(0x0001))
            extra.appendLittleEndian(UInt16((bigSize ? 16 : 0) + (bigOffset ? 8 : 0)))
            if bigSize {
                extra.appendLittleEndian(size)  // uncompressed
                extra.appendLittleEndian(size)  // compressed
            }
            if bigOffset { extra.appendLittleEndian(headerOffset) }
        }
        bytes.appendLittleEndian(UInt32(0x0201_4b50))
        bytes.appendLittleEndian(versionMadeBy)
        bytes.appendLittleEndian(localZip64 || !extra.isEmpty ? version45 : version20)
        bytes.appendLittleEndian(flags)
        bytes.appendLittleEndian(UInt16(0))  // stored
        bytes.appendLittleEndian(modified.time)
        bytes.appendLittleEndian(modified.date)
        bytes.appendLittleEndian(crc)
        bytes.appendLittleEndian(UInt32(min(size, limit32)))  // compressed
        bytes.appendLittleEndian(UInt32(min(size, limit32)))  // uncompressed
        bytes.appendLittleEndian(UInt16(name.bytes.count))
        bytes.appendLittleEndian(UInt16(extra.count))
        bytes.appendLittleEndian(UInt16(0))  // comment length
        bytes.appendLittleEndian(UInt16(0))  // disk number start
        bytes.appendLittleEndian(UInt16(0))  // internal attributes
        bytes.appendLittleEndian(externalAttributes)
        bytes.appendLittleEndian(UInt32(min(headerOffset, limit32)))
        bytes.append(contentsOf: name.bytes)
        bytes.append(contentsOf: extra)
    }

    /// The ZIP64 end of central directory record (§4.3.14) at `recordOffset`, and its locator
    /// (§4.3.15).
    static func appendZip64End(
        to bytes: inout [UInt8], entries: UInt64, directoryOffset: UInt64, directorySize: UInt64,
        recordOffset: UInt64
    ) {
        bytes.appendLittleEndian(UInt32(0x0606_4b50))
        bytes.appendLittleEndian(UInt64(44))  // the record's size after this field
        bytes.appendLittleEndian(versionMadeBy)
        bytes.appendLittleEndian(version45)
        bytes.appendLittleEndian(UInt32(0))  // this disk
        bytes.appendLittleEndian(UInt32(0))  // the central directory's disk
        bytes.appendLittleEndian(entries)  // on this disk
        bytes.appendLittleEndian(entries)  // in all
        bytes.appendLittleEndian(directorySize)
        bytes.appendLittleEndian(directoryOffset)
        bytes.appendLittleEndian(UInt32(0x0706_4b50))
        bytes.appendLittleEndian(UInt32(0))  // the ZIP64 end record's disk
        bytes.appendLittleEndian(recordOffset)
        bytes.appendLittleEndian(UInt32(1))  // disks in all
    }

    /// The end of central directory record (§4.3.16); fields too small for their value hold
    /// their maximum, which sends readers to the ZIP64 record.
    static func appendEnd(to bytes: inout [UInt8], entries: UInt64, directoryOffset: UInt64, directorySize: UInt64) {
        bytes.appendLittleEndian(UInt32(0x0605_4b50))
        bytes.appendLittleEndian(UInt16(0))  // this disk
        bytes.appendLittleEndian(UInt16(0))  // the central directory's disk
        bytes.appendLittleEndian(UInt16(min(entries, 0xFFFF)))
        bytes.appendLittleEndian(UInt16(min(entries, 0xFFFF)))
        bytes.appendLittleEndian(UInt32(min(directorySize, limit32)))
        bytes.appendLittleEndian(UInt32(min(directoryOffset, limit32)))
        bytes.appendLittleEndian(UInt16(0))  // comment length
    }
}

extension Array where Element == UInt8 {
    /// Appends `value`'s bytes, least significant first.
    fileprivate mutating func appendLittleEndian<T: FixedWidthInteger>(_ value: T) {
        var value = value.littleEndian
        Swift.withUnsafeBytes(of: &value) { append(contentsOf: $0) }
    }
}
