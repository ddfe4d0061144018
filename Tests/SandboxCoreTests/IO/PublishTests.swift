import Glibc
import SandboxCore
import SandboxTesting
import SystemPackage
import Testing

/// The one publish step of whole-file writes: durability, what a replaced file keeps, long names,
/// temporaries left by a dead writer.
@Suite("Publishing written files")
struct PublishTests {
    /// Every way of writing a whole file, so that each rule is checked on all of them.
    enum Technique: String, CaseIterable, CustomTestStringConvertible {
        case contents, asyncContents, writer, descriptor
        var testDescription: String { rawValue }

        func write(_ bytes: [UInt8], to path: ContainerPath, in root: ConfinedRoot, options: WriteOptions) async throws
        {
            switch self {
            case .contents:
                try root.writeContents(bytes, to: path, options: options)
            case .asyncContents:
                try await root.writeContents(DataRegions(bytes), to: path, options: options, engine: .shared)
            case .writer:
                try await root.withWriter(at: path, options: options) { writer in
                    try await writer.write(contentsOf: bytes.prefix(bytes.count / 2))
                    try await writer.write(contentsOf: bytes.dropFirst(bytes.count / 2))
                }
            case .descriptor:
                let source = try HostFile.temporary(bytes)
                defer {
                    close(source.descriptor)
                    unlink(source.path)
                }
                try root.writeContents(
                    readingFrom: FileDescriptor(rawValue: source.descriptor), to: path, options: options)
            }
        }
    }

    @Test(
        "durable without atomic leaves no dirty page of the file",
        .enabled(if: PageCache.isAvailable, "cachestat(2) needs Linux 6.5"), arguments: Technique.allCases)
    func durableInPlace(technique: Technique) async throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", [1, 2, 3])
        let bytes = patternBytes(1 << 20, seed: 41)
        try await technique.write(bytes, to: ioPath("f"), in: fixture.root, options: .durable)
        #expect(fixture.hostRead("f") == bytes)
        #expect(PageCache.unwrittenPages(fixture.host("f")) == 0, "\(technique): the file was not synchronized")
        try await technique.write(bytes, to: ioPath("new"), in: fixture.root, options: .durable)
        #expect(PageCache.unwrittenPages(fixture.host("new")) == 0, "\(technique): the new file was not synchronized")
    }

    @Test(
        "a replaced file keeps its owner, group, mode and user attributes",
        .enabled(if: geteuid() == 0, "giving a file away needs root"), arguments: Technique.allCases)
    func replacedKeepsMetadata(technique: Technique) async throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("f", [1])
        #expect(chown(fixture.host("f"), 1234, 5678) == 0)
        #expect(chmod(fixture.host("f"), 0o640) == 0)
        try fixture.root.setExcludedFromBackup(true, at: ioPath("f"))
        try fixture.root.setExtendedAttribute(named: "user.note", to: [9, 8], at: ioPath("f"))
        let bytes = patternBytes(100_000, seed: 42)
        try await technique.write(bytes, to: ioPath("f"), in: fixture.root, options: .atomic)
        #expect(fixture.hostRead("f") == bytes)
        let info = try HostFile.status(fixture.host("f"))
        #expect(info.st_uid == 1234 && info.st_gid == 5678, "\(technique): owner \(info.st_uid):\(info.st_gid)")
        #expect(info.st_mode & 0o7777 == 0o640, "\(technique): mode \(String(info.st_mode & 0o7777, radix: 8))")
        #expect(try fixture.root.isExcludedFromBackup(at: ioPath("f")), "\(technique): excluded-from-backup was lost")
        #expect(try fixture.root.extendedAttribute(named: "user.note", at: ioPath("f")) == [9, 8])
        #expect(fixture.hostList() == ["f"])
    }

    @Test(
        "a replaced symlink is not followed for metadata: its target keeps everything",
        .enabled(if: geteuid() == 0, "giving a file away needs root"))
    func replacedSymlink() async throws {
        let fixture = try IOFixture()
        try fixture.hostWrite("real", [1])
        #expect(chown(fixture.host("real"), 1234, 5678) == 0)
        #expect(chmod(fixture.host("real"), 0o600) == 0)
        #expect(symlink("real", fixture.host("link")) == 0)
        try fixture.root.writeContents([2], to: ioPath("link"))
        let link = try HostFile.status(fixture.host("link"))
        #expect(link.st_mode & S_IFMT == S_IFREG && link.st_uid == geteuid())
        let real = try HostFile.status(fixture.host("real"))
        #expect(real.st_uid == 1234 && real.st_mode & 0o7777 == 0o600)
        #expect(fixture.hostRead("real") == [1])
    }

    @Test("a name of 255 bytes can be created and replaced", arguments: Technique.allCases)
    func longName(technique: Technique) async throws {
        let fixture = try IOFixture()
        let name = String(repeating: "é", count: 127) + "a"  // 255 bytes, 128 characters
        #expect(name.utf8.count == 255)
        for seed: UInt64 in [43, 44] {
            let bytes = patternBytes(10_000, seed: seed)
            try await technique.write(bytes, to: ioPath(name), in: fixture.root, options: [.atomic, .durable])
            #expect(fixture.hostRead(name) == bytes)
        }
        #expect(fixture.hostList() == [name])
    }

    @Test("the sweep leaves a temporary that a live writer holds, and removes it once the writer is gone")
    func sweepSkipsLiveWriter() throws {
        let fixture = try IOFixture()
        try fixture.hostWrite(".f.sandbox-abc", [1])
        let writer = open(fixture.host(".f.sandbox-abc"), O_WRONLY | O_CLOEXEC)
        #expect(writer >= 0)
        var lock = flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        let setOpenFileLock: CInt = 37  // F_OFD_SETLK, as a writer holds its temporary
        #expect(fcntl(writer, setOpenFileLock, &lock) == 0)
        #expect(try fixture.root.removeInterruptedWrites(olderThan: .zero) == 0, "a live writer's file was removed")
        #expect(fixture.hostList() == [".f.sandbox-abc"])
        close(writer)
        #expect(try fixture.root.removeInterruptedWrites(olderThan: .zero) == 1)
        #expect(fixture.hostList().isEmpty)
    }
}

/// The page cache's view of a file, through `cachestat(2)` (Linux 6.5).
enum PageCache {
    private typealias SystemCall =
        @convention(c) (Int, Int, UnsafeMutableRawPointer?, UnsafeMutableRawPointer?, Int) -> Int
    private static let cachestat = 451  // the same number on every Linux architecture

    /// `syscall(2)`, looked up at run time: Swift does not import variadic C functions.
    private static let systemCall: SystemCall? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "syscall") else { return nil }
        return unsafeBitCast(symbol, to: SystemCall.self)
    }()

    static let isAvailable: Bool = unwrittenPages("/proc/self/exe") != nil

    /// Pages of the file at `path` that are dirty or under writeback, or `nil` where the kernel
    /// cannot tell.
    static func unwrittenPages(_ path: String) -> UInt64? {
        guard let systemCall else { return nil }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var range: (UInt64, UInt64) = (0, 0)  // offset, length (0: to the end)
        var counts: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)  // cache, dirty, writeback, …
        let result = withUnsafeMutableBytes(of: &range) { range in
            withUnsafeMutableBytes(of: &counts) { counts in
                systemCall(cachestat, Int(fd), range.baseAddress, counts.baseAddress, 0)
            }
        }
        return result == 0 ? counts.1 + counts.2 : nil
    }
}

/// Host files for tests, through the host (not through the code under test).
enum HostFile {
    /// A new file in the scratch base (`$TMPDIR`) holding `bytes`, open for reading at offset 0.
    static func temporary(_ bytes: [UInt8]) throws -> (path: String, descriptor: CInt) {
        var template = Array("\(ScratchDirectory.base)/sandbox-io-source-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.map { mkstemp($0) } ?? -1 }
        guard fd >= 0 else { throw IOTestFailure("mkstemp: \(String(cString: strerror(errno)))") }
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count, lseek(fd, 0, SEEK_SET) == 0 else { throw IOTestFailure("writing \(path) failed") }
        return (path, fd)
    }

    static func status(_ path: String) throws -> stat {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw IOTestFailure("lstat \(path): \(String(cString: strerror(errno)))") }
        return info
    }
}
