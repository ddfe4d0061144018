import CSandboxShims
import Foundation
import Glibc
import SandboxCore
import Testing

/// Names are bytes: a name that is not valid UTF-8 is listed, measured, copied and removed, and
/// NFC and NFD spellings of one word are two names (issue 17, item 3).
@Suite("Raw names")
struct RawNameTests {
    /// `bad\xFF.txt`: not valid UTF-8.
    static let invalid: [UInt8] = Array("bad".utf8) + [0xFF] + Array(".txt".utf8)
    /// `dir\xC3(`: a truncated two-byte sequence.
    static let invalidDirectory: [UInt8] = Array("dir".utf8) + [0xC3, 0x28]

    /// Creates `name` (raw bytes) in the host directory `directory`: a file, or a directory.
    static func hostCreate(_ name: [UInt8], in directory: String, directory isDirectory: Bool = false) throws {
        let parent = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard parent >= 0 else { throw HostError("open \(directory)", errno) }
        defer { close(parent) }
        let cName = name.map { CChar(bitPattern: $0) } + [0]
        if isDirectory {
            guard mkdirat(parent, cName, 0o755) == 0 else { throw HostError("mkdirat", errno) }
        } else {
            let fd = openat(parent, cName, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            guard fd >= 0 else { throw HostError("openat", errno) }
            _ = write(fd, "12345", 5)
            close(fd)
        }
    }

    /// The raw names in a host directory.
    static func hostNames(_ directory: String) -> Set<[UInt8]> {
        guard let stream = opendir(directory) else { return [] }
        defer { closedir(stream) }
        var names = Set<[UInt8]>()
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in Array(raw.prefix { $0 != 0 }) }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.insert(name) }
        }
        return names
    }

    @Test(
        "a name that is not valid UTF-8 is listed byte for byte, reachable, measured and removed",
        arguments: bothResolutions)
    func invalidNameRoundTrips(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeDirectory("Documents")
        try Self.hostCreate(Self.invalid, in: tmp.host("Documents"))
        let root = try tmp.root(resolution)

        let entries = try root.contentsOfDirectory(at: cpath("Documents"))
        #expect(entries.count == 1)
        let entry = try #require(entries.first)
        #expect(entry.fileName.bytes == Self.invalid)
        #expect(!entry.fileName.isValidUTF8)
        #expect(entry.fileName.string == nil)
        #expect(entry.name == "bad\\xFF.txt")
        #expect(entry.path.description == "Documents/bad\\xFF.txt")
        #expect(entry.type == .regular)

        // The listed path reaches the very item in every *at call.
        #expect(try root.attributes(at: entry.path, followingSymlink: false)?.size == 5)
        #expect(try root.readContents(of: entry.path, maximumSize: 100) == Array("12345".utf8))
        #expect(try root.recursiveSize(at: cpath("Documents"))?.fileCount == 1)
        #expect(try root.removeItem(at: entry.path) == 1)
        #expect(Self.hostNames(tmp.host("Documents")).isEmpty)
    }

    @Test("trees with such names are copied byte for byte and removed whole", arguments: bothResolutions)
    func invalidNamesInTrees(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeDirectory("tmp")
        try Self.hostCreate(Self.invalidDirectory, in: tmp.host("tmp"), directory: true)
        // The host cannot spell the directory as a String path: go through a descriptor.
        let parent = open(tmp.host("tmp"), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(parent) }
        let child = openat(
            parent, Self.invalidDirectory.map { CChar(bitPattern: $0) } + [0], O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(child >= 0)
        defer { close(child) }
        try Self.hostCreate(Self.invalid, in: "/proc/self/fd/\(child)")
        let root = try tmp.root(resolution)

        var seen: [[UInt8]] = []
        try root.enumerate(at: cpath("tmp"), recursive: true) { entry throws(SandboxError) in
            seen.append(entry.fileName.bytes)
        }
        #expect(Set(seen) == [Self.invalidDirectory, Self.invalid])
        #expect(try root.recursiveSize(at: cpath("tmp"))?.fileCount == 1)

        #expect(try root.copyItem(from: cpath("tmp"), to: cpath("copy")) == 3)
        #expect(Self.hostNames(tmp.host("copy")) == [Self.invalidDirectory])
        #expect(Self.hostNames("/proc/self/fd/\(child)") == [Self.invalid])

        #expect(try root.removeContents(of: cpath("tmp")) == 2)
        #expect(Self.hostNames(tmp.host("tmp")).isEmpty)
        #expect(try root.removeItem(at: cpath("copy"), recursively: true) == 3)
        #expect(!TemporaryDirectory.hostExists(tmp.host("copy")))
    }

    @Test("a user attribute whose name is not UTF-8 is copied with the file")
    func invalidAttributeNameIsCopied() throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f", "data")
        let fd = open(tmp.host("f"), O_RDWR | O_CLOEXEC)
        defer { close(fd) }
        let name: [CChar] = Array("user.bad".utf8).map { CChar(bitPattern: $0) } + [CChar(bitPattern: 0xFF), 0]
        guard csb_fsetxattr(fd, name, "v", 1, 0) == 0 else {
            guard errno == ENOTSUP else { throw HostError("fsetxattr", errno) }
            return  // no user xattrs on this file system: nothing to copy
        }
        let root = try tmp.root(.openat2)
        try root.copyItem(from: cpath("f"), to: cpath("g"))
        let copy = open(tmp.host("g"), O_RDONLY | O_CLOEXEC)
        defer { close(copy) }
        var value: [CChar] = [0, 0]
        #expect(csb_fgetxattr(copy, name, &value, 2) == 1)
        #expect(value[0] == CChar(UInt8(ascii: "v")))
    }

    @Test("NFC and NFD spellings of one name are two items and two paths")
    func normalizationFormsDiffer() throws {
        let tmp = try TemporaryDirectory()
        let nfc = "caf\u{E9}"
        let nfd = "cafe\u{301}"
        #expect(nfc == nfd)  // Swift strings: canonically equivalent
        try tmp.makeFile(nfc, "composed")
        try tmp.makeFile(nfd, "decomposed")
        let root = try tmp.root(.openat2)
        let paths = try root.contentsOfDirectory(at: .root).map(\.path)
        #expect(paths.count == 2)
        #expect(Set(paths).count == 2)
        #expect(try cpath(nfc) != cpath(nfd))
        #expect(try FileName(nfc).isNFC)
        #expect(try !FileName(nfd).isNFC)
        #expect(try root.readContents(of: cpath(nfd), maximumSize: 100) == Array("decomposed".utf8))
    }

    @Test("display escapes unambiguously")
    func displayEscapes() throws {
        // A valid name spelling an escape, and the invalid name it spells, display differently.
        let literal = try FileName("a\\xFF")
        let listed = try #require(try root(listing: Array("a".utf8) + [0xFF]))
        #expect(literal.description == "a\\\\xFF")
        #expect(listed.description == "a\\xFF")
        #expect(literal != listed)
        #expect(try FileName("tab\there\n").description == "tab\\x09here\\x0A")
        #expect(try FileName("é and 😀").description == "é and 😀")
        #expect(try ContainerPath("a/b\\c").description == "a/b\\\\c")
        #expect(try ContainerPath("a/b\\c").string == "a/b\\c")
    }

    /// A name as listed from disk (through a real directory, since only the file system makes them).
    private func root(listing name: [UInt8]) throws -> FileName? {
        let tmp = try TemporaryDirectory()
        try Self.hostCreate(name, in: tmp.container)
        return try tmp.root(.openat2).contentsOfDirectory(at: .root).first?.fileName
    }

    @Test("names from text are validated")
    func namesFromText() throws {
        expectError(.invalidPath) { _ = try FileName("") }
        expectError(.invalidPath) { _ = try FileName(".") }
        expectError(.invalidPath) { _ = try FileName("..") }
        expectError(.invalidPath) { _ = try FileName("a/b") }
        expectError(.escapesContainer) { _ = try FileName("a\u{0}b") }
        expectError(.nameTooLong) { _ = try FileName(String(repeating: "x", count: 256)) }
        #expect(try FileName(String(repeating: "x", count: 255)).count == 255)
    }
}
