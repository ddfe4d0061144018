/// The bytes of a ZIP archive written front to back, one entry at a time, to a stream that
/// cannot seek: a response body.
///
/// Why not ZIPFoundation (in the package list): it writes an archive to a file or memory it can
/// seek in, to go back and fill in each entry's sizes and checksum; a response body cannot seek,
/// and a temporary copy of the whole folder is what this avoids. So entries are written as
/// streaming writers do (APPNOTE 6.3.10, §4.3.9): general purpose bit 3 set, the local header's
/// checksum and sizes zero, and a data descriptor after the data carrying them.
///
/// A pure value: it does no I/O. The caller writes each file's bytes itself, between
/// ``beginFile(named:modified:permissions:expectedSize:)`` and ``endFile(crc:size:)``, and sends
/// what each call returns, in order; ``finish()`` returns the central directory and the end
/// records. Memory grows with the number of entries (each one's central directory record, about
/// 50 bytes plus its name), not with their sizes.
///
/// - Entries are stored (method 0), not deflated: storing costs nothing but the CRC, while deflate
///   runs at tens of MB/s a core, and most documents (photos, videos, PDFs, office files) are
///   compressed already, so deflating them would slow the download for almost no saving.
/// - Names are bytes, as listed: a valid UTF-8 name sets bit 11 (language encoding); one that is
///   not keeps its bytes and leaves bit 11 clear, as Info-ZIP does with a name it cannot decode.
/// - Folders are entries whose name ends in `/`.
/// - ZIP64 (§4.5.3) where needed: a file whose expected size is 0xFFFFFFFF or more gets a ZIP64
///   extra field in its local header and 8-byte sizes in its data descriptor; the central
///   directory gets ZIP64 extra fields for sizes and offsets past 32 bits, and the archive a ZIP64
///   end of central directory record and locator when it has more than 65,534 entries or its
///   central directory starts or ends past 4 GiB.
/// - Made by Unix, version 6.3 (`3 << 8 | 63`), so that extractors restore the permission bits
///   kept in each entry's external attributes.
struct ZipStreamEncoder: Sendable {
    /// The bytes of the archive so far, the callers' file data included: the next record's offset.
    private(set) var offset: UInt64 = 0
    /// The central directory's records, kept encoded.
    private var centralDirectory: [UInt8] = []
    private(set) var entryCount: UInt64 = 0
    /// The file whose data is being written, between its two calls.
    private var open: OpenEntry?
    private var finished = false

    private struct OpenEntry: Sendable {
        let name: ZipName
        let modified: DOSDateTime
        let externalAttributes: UInt32
        let headerOffset: UInt64
        /// Whether the local header announced ZIP64 (so the data descriptor has 8-byte sizes).
        let zip64: Bool
    }

    init() {}

    /// The local header of a folder (its name gets a `/` if it has none); a folder has no data.
    mutating func directory(named name: [UInt8], modified: DOSDateTime, permissions: UInt16) -> [UInt8] {
        precondition(open == nil && !finished, "a folder entry inside a file's data, or after finish()")
        let name = ZipName(name.last == UInt8(ascii: "/") ? name : name + [UInt8(ascii: "/")])
        let attributes = UInt32(0o040000 | UInt32(permissions & 0o7777)) << 16 | 0x10  // S_IFDIR, MS-DOS directory
        let header = ZipRecords.localHeader(
            name: name, flags: name.flags, modified: modified, zip64: false)
        recordCentral(
            name: name, flags: name.flags, modified: modified, crc: 0, size: 0, headerOffset: offset,
            externalAttributes: attributes, localZip64: false)
        offset += UInt64(header.count)
        return header
    }

    /// The local header of a file whose data the caller writes next.
    ///
    /// - Parameters:
    ///   - expectedSize: the most bytes the caller will write; at 0xFFFFFFFF or more the entry is
    ///     ZIP64 from its local header on. The data written may be shorter (a file that shrank).
    mutating func beginFile(
        named name: [UInt8], modified: DOSDateTime, permissions: UInt16, expectedSize: UInt64
    ) -> [UInt8] {
        precondition(open == nil && !finished, "beginFile() before the last file's endFile(), or after finish()")
        let name = ZipName(name)
        let zip64 = expectedSize >= ZipRecords.limit32
        let entry = OpenEntry(
            name: name, modified: modified,
            externalAttributes: UInt32(0o100000 | UInt32(permissions & 0o7777)) << 16,  // S_IFREG
            headerOffset: offset, zip64: zip64)
        let header = ZipRecords.localHeader(
            name: name, flags: name.flags | ZipRecords.dataDescriptorFlag, modified: modified, zip64: zip64)
        open = entry
        offset += UInt64(header.count)
        return header
    }

    /// The data descriptor that ends the open file, whose `size` bytes (checksum `crc`) the caller
    /// has written since ``beginFile(named:modified:permissions:expectedSize:)``.
    ///
    /// `size` must be below 0xFFFFFFFF unless the file was begun with an `expectedSize` at least
    /// that large (a programmer error otherwise: the descriptor's sizes would not fit).
    mutating func endFile(crc: UInt32, size: UInt64) -> [UInt8] {
        guard let entry = open else { preconditionFailure("endFile() without beginFile()") }
        precondition(entry.zip64 || size < ZipRecords.limit32, "\(size) bytes written after a 32-bit local header")
        open = nil
        offset += size
        let descriptor = ZipRecords.dataDescriptor(crc: crc, size: size, zip64: entry.zip64)
        offset += UInt64(descriptor.count)
        recordCentral(
            name: entry.name, flags: entry.name.flags | ZipRecords.dataDescriptorFlag, modified: entry.modified,
            crc: crc, size: size, headerOffset: entry.headerOffset, externalAttributes: entry.externalAttributes,
            localZip64: entry.zip64)
        return descriptor
    }

    /// The central directory and the end records: the archive's last bytes. Nothing may follow.
    mutating func finish() -> [UInt8] {
        precondition(open == nil && !finished, "finish() inside a file's data, or twice")
        finished = true
        var tail = centralDirectory
        centralDirectory = []
        let start = offset
        let size = UInt64(tail.count)
        let needsZip64 =
            entryCount >= 0xFFFF || start >= ZipRecords.limit32 || start + size >= ZipRecords.limit32
        if needsZip64 {
            ZipRecords.appendZip64End(
                to: &tail, entries: entryCount, directoryOffset: start, directorySize: size,
                recordOffset: start + size)
        }
        ZipRecords.appendEnd(to: &tail, entries: entryCount, directoryOffset: start, directorySize: size)
        offset += UInt64(tail.count)
        return tail
    }

    private mutating func recordCentral(
        name: ZipName, flags: UInt16, modified: DOSDateTime, crc: UInt32, size: UInt64, headerOffset: UInt64,
        externalAttributes: UInt32, localZip64: Bool
    ) {
        ZipRecords.appendCentralHeader(
            to: &centralDirectory, name: name, flags: flags, modified: modified, crc: crc, size: size,
            headerOffset: headerOffset, externalAttributes: externalAttributes, localZip64: localZip64)
        entryCount += 1
    }
}

/// An entry's name as stored: its bytes, and whether they are UTF-8 (bit 11).
struct ZipName: Sendable {
    let bytes: [UInt8]
    let isUTF8: Bool

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
        isUTF8 = String(validating: bytes, as: UTF8.self) != nil
    }

    /// General purpose bit 11, the language encoding flag, when the name is UTF-8.
    var flags: UInt16 { isUTF8 ? 1 << 11 : 0 }
}
