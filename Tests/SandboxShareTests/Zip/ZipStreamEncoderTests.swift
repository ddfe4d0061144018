import Foundation
import Glibc
import SandboxTesting
import Testing

@testable import SandboxShare

/// The encoder's bytes, read field by field and by Python's `zipfile` and Info-ZIP's `unzip`.
@Suite struct ZipStreamEncoderTests {
    let modified = DOSDateTime(year: 2026, month: 11, day: 24, hour: 13, minute: 5, second: 6)

    /// One folder and one file, "hello": every field of the local header, the data descriptor,
    /// the central directory and the end record.
    @Test func headersBytesForOneFolderAndOneFile() {
        var encoder = ZipStreamEncoder()
        let folder = encoder.directory(named: Array("F".utf8), modified: modified, permissions: 0o755)
        #expect(folder.count == 30 + 2)
        #expect(ZipCheck.integer(folder, at: 0, as: UInt32.self) == 0x0403_4b50)
        #expect(ZipCheck.integer(folder, at: 6, as: UInt16.self) == 1 << 11, "UTF-8; no data descriptor")
        #expect(Array(folder[30...]) == Array("F/".utf8))

        let data = Array("hello".utf8)
        let header = encoder.beginFile(
            named: Array("F/a.txt".utf8), modified: modified, permissions: 0o640, expectedSize: 5)
        #expect(header.count == 30 + 7)
        #expect(ZipCheck.integer(header, at: 4, as: UInt16.self) == 20, "version needed 2.0")
        #expect(ZipCheck.integer(header, at: 6, as: UInt16.self) == 1 << 11 | 1 << 3)
        #expect(ZipCheck.integer(header, at: 8, as: UInt16.self) == 0, "stored")
        #expect(ZipCheck.integer(header, at: 10, as: UInt16.self) == modified.time)
        #expect(ZipCheck.integer(header, at: 12, as: UInt16.self) == modified.date)
        #expect(ZipCheck.integer(header, at: 14, as: UInt64.self) == 0, "CRC and compressed size in the descriptor")
        #expect(ZipCheck.integer(header, at: 22, as: UInt32.self) == 0)
        #expect(ZipCheck.integer(header, at: 26, as: UInt16.self) == 7)
        #expect(ZipCheck.integer(header, at: 28, as: UInt16.self) == 0, "no extra field")

        let crc = CRC32.checksum(data)
        let descriptor = encoder.endFile(crc: crc, size: 5)
        #expect(descriptor.count == 16)
        #expect(ZipCheck.integer(descriptor, at: 0, as: UInt32.self) == 0x0807_4b50)
        #expect(ZipCheck.integer(descriptor, at: 4, as: UInt32.self) == crc)
        #expect(ZipCheck.integer(descriptor, at: 8, as: UInt32.self) == 5)
        #expect(ZipCheck.integer(descriptor, at: 12, as: UInt32.self) == 5)

        let tail = encoder.finish()
        let fileRecord = 46 + 2  // the folder's record comes first
        #expect(ZipCheck.integer(tail, at: 0, as: UInt32.self) == 0x0201_4b50)
        #expect(ZipCheck.integer(tail, at: 4, as: UInt16.self) == 3 << 8 | 63, "made by Unix, 6.3")
        #expect(ZipCheck.integer(tail, at: 38, as: UInt32.self) == (0o040755 << 16 | 0x10))
        #expect(ZipCheck.integer(tail, at: fileRecord + 16, as: UInt32.self) == crc)
        #expect(ZipCheck.integer(tail, at: fileRecord + 20, as: UInt32.self) == 5)
        #expect(ZipCheck.integer(tail, at: fileRecord + 38, as: UInt32.self) == 0o100640 << 16)
        #expect(ZipCheck.integer(tail, at: fileRecord + 42, as: UInt32.self) == 32, "the file's header offset")
        let end = fileRecord + 46 + 7
        #expect(tail.count == end + 22, "no ZIP64 records")
        #expect(ZipCheck.integer(tail, at: end, as: UInt32.self) == 0x0605_4b50)
        #expect(ZipCheck.integer(tail, at: end + 10, as: UInt16.self) == 2)
        #expect(ZipCheck.integer(tail, at: end + 12, as: UInt32.self) == UInt32(end))
        #expect(ZipCheck.integer(tail, at: end + 16, as: UInt32.self) == UInt32(32 + 37 + 5 + 16))
        #expect(encoder.offset == UInt64(32 + 37 + 5 + 16 + tail.count))
    }

    /// A name that is not UTF-8 keeps its bytes, without bit 11.
    @Test func nameNotUTF8KeepsItsBytesWithoutBit11() {
        var encoder = ZipStreamEncoder()
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".txt".utf8)
        let header = encoder.beginFile(named: name, modified: modified, permissions: 0o644, expectedSize: 0)
        #expect(ZipCheck.integer(header, at: 6, as: UInt16.self) == 1 << 3)
        #expect(Array(header[30...]) == name)
        _ = encoder.endFile(crc: 0, size: 0)
        let tail = encoder.finish()
        #expect(ZipCheck.integer(tail, at: 8, as: UInt16.self) == 1 << 3)
        #expect(Array(tail[46..<(46 + name.count)]) == name)
    }

    /// 0xFFFFFFFE bytes fit 32 bits; 0xFFFFFFFF do not (the field's maximum means "see ZIP64").
    @Test(arguments: [(UInt64(0xFFFF_FFFE), false), (0xFFFF_FFFF, true), (5 << 30, true)])
    func zip64FromTheLocalHeaderAtTheThreshold(size: UInt64, zip64: Bool) {
        var encoder = ZipStreamEncoder()
        let header = encoder.beginFile(
            named: Array("big".utf8), modified: modified, permissions: 0o644, expectedSize: size)
        #expect(header.count == 30 + 3 + (zip64 ? 20 : 0))
        #expect(ZipCheck.integer(header, at: 4, as: UInt16.self) == (zip64 ? 45 : 20))
        #expect(ZipCheck.integer(header, at: 18, as: UInt64.self) == (zip64 ? 0xFFFF_FFFF_FFFF_FFFF : 0))
        if zip64 {
            #expect(ZipCheck.integer(header, at: 33, as: UInt16.self) == 1, "ZIP64 extra field")
            #expect(ZipCheck.integer(header, at: 35, as: UInt16.self) == 16)
        }
        let descriptor = encoder.endFile(crc: 0x1234_5678, size: size)
        #expect(descriptor.count == (zip64 ? 24 : 16))
        #expect(ZipCheck.integer(descriptor, at: 8, as: UInt32.self) == UInt32(truncatingIfNeeded: size))
        let tail = encoder.finish()
        #expect(ZipCheck.integer(tail, at: 20, as: UInt32.self) == UInt32(min(size, 0xFFFF_FFFF)))
        #expect(ZipCheck.integer(tail, at: 30, as: UInt16.self) == (size >= 0xFFFF_FFFF ? 20 : 0))
        // The archive ends past 4 GiB only with the 5 GiB entry: then ZIP64 end records.
        let hasZip64End = !ZipCheck.offsets(of: 0x0606_4b50, in: tail).isEmpty
        #expect(hasZip64End == (encoder.offset > 0xFFFF_FFFF))
    }

    /// A 5 GiB entry (a sparse file: no 5 GiB written) followed by a small one, whose offset is
    /// past 4 GiB: Python reads the central directory's ZIP64 fields and the small entry's bytes,
    /// `unzip` tests the small entry.
    @Test(.enabled(if: ExternalTool.available("python3", "unzip")))
    func zip64ArchiveIsReadByPythonAndUnzip() async throws {
        try await ScratchDirectory.with { scratch in
            let path = scratch.appending("big.zip")
            let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            try #require(fd >= 0)
            defer { close(fd) }
            var offset = 0
            func put(_ bytes: [UInt8]) throws {
                let written = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, offset) }
                try #require(written == bytes.count)
                offset += bytes.count
            }
            var encoder = ZipStreamEncoder()
            let big: UInt64 = 5 << 30
            try put(
                encoder.beginFile(
                    named: Array("big.bin".utf8), modified: modified, permissions: 0o644, expectedSize: big))
            offset += Int(big)  // a hole: zeros
            // The CRC-32 of 5 GiB of zeros (zlib.crc32), which a debug build would take a minute
            // to compute.
            try put(encoder.endFile(crc: 0x1938_38C3, size: big))
            let small = Array("after the hole".utf8)
            try put(
                encoder.beginFile(
                    named: Array("small.txt".utf8), modified: modified, permissions: 0o644,
                    expectedSize: UInt64(small.count)))
            try put(small)
            try put(encoder.endFile(crc: CRC32.checksum(small), size: UInt64(small.count)))
            try put(encoder.finish())

            let script = """
                import sys, zipfile
                archive = zipfile.ZipFile(sys.argv[1])
                big, small = archive.infolist()
                print(big.file_size, small.header_offset, archive.read('small.txt').decode())
                """
            let output = try await ZipCheck.python(script, [path], scratch: scratch.path)
            #expect(output == "\(big) \(big + 30 + 7 + 20 + 24) after the hole\n")
            let unzip = try await ExternalTool.run("unzip", ["-t", path, "small.txt"], outputIn: scratch.path)
            #expect(unzip.status == 0, "\(unzip.stdout) \(unzip.stderr)")
        }
    }

    /// 65,535 entries need the ZIP64 end record (the 16-bit count's maximum means "see ZIP64").
    @Test(.enabled(if: ExternalTool.available("python3")))
    func moreThan65534EntriesUseTheZip64EndRecord() async throws {
        var encoder = ZipStreamEncoder()
        var archive: [UInt8] = []
        for index in 0..<65_535 {
            archive += encoder.beginFile(
                named: Array("\(index)".utf8), modified: modified, permissions: 0o644, expectedSize: 0)
            archive += encoder.endFile(crc: 0, size: 0)
        }
        archive += encoder.finish()
        #expect(ZipCheck.offsets(of: 0x0606_4b50, in: Array(archive.suffix(200))).count == 1)
        try await ScratchDirectory.with { scratch in
            let path = scratch.appending("many.zip")
            try ZipCheck.save(archive, to: path)
            let script = "import sys, zipfile; z = zipfile.ZipFile(sys.argv[1]); print(len(z.infolist()), z.testzip())"
            #expect(try await ZipCheck.python(script, [path], scratch: scratch.path) == "65535 None\n")
        }
    }
}
