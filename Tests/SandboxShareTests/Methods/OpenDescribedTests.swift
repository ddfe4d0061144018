import Glibc
import Sandbox
import SandboxTesting
import SystemPackage
import Testing

@testable import SandboxShare

/// The core's open for GET (`ConfinedRoot.openFileDescribed(forReadingAt:)`): one `statx` both
/// checks the file's type and gives the values the response's validators come from.
@Suite struct OpenDescribedTests {
    /// The values are those of the file opened: the same as a `statx` of the open file afterwards.
    @Test func theValuesAreThoseOfTheFileOpened() throws {
        let scratch = try ScratchDirectory.make(prefix: "share-open-described")
        defer { scratch.remove() }
        try plantFile(Array("\(scratch.path)/file.bin".utf8), Array(repeating: 7, count: 1234))
        let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
        let (file, attributes) = try root.openFileDescribed(forReadingAt: ContainerPath("file.bin"))
        defer { closeQuietly(file) }
        let after = try file.attributes()
        #expect(attributes.type == .regular && attributes.size == 1234)
        #expect(attributes.inode == after.inode && attributes.device == after.device)
        #expect(attributes.modificationDate == after.modificationDate)
        // Reads block again (`O_NONBLOCK` was only for the open).
        let flags = try file.withUnsafeDescriptor { fd throws(SandboxError) in fcntl(fd.rawValue, F_GETFL) }
        #expect(flags & O_NONBLOCK == 0)
        #expect(try file.read(upToCount: 2000).bytes == Array(repeating: UInt8(7), count: 1234))
    }

    /// The handle names the file for messages as the core displays names: as they are, with a
    /// backslash doubled and control characters escaped.
    @Test func theHandleNamesTheFileForDisplay() throws {
        let scratch = try ScratchDirectory.make(prefix: "share-open-described")
        defer { scratch.remove() }
        let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
        for (name, shown) in [("café 日記.txt", "café 日記.txt"), ("a\\b", "a\\\\b"), ("tab\there", "tab\\x09here")] {
            try plantFile(Array("\(scratch.path)/\(name)".utf8), [1])
            let (file, _) = try root.openFileDescribed(forReadingAt: ContainerPath(name))
            defer { closeQuietly(file) }
            #expect(file.path == shown)
        }
    }

    /// A directory, a FIFO (opened without waiting for a writer), a missing name and a symlink are
    /// refused with the codes GET turns into 405 and 404.
    @Test func onlyRegularFilesOpen() throws {
        let scratch = try ScratchDirectory.make(prefix: "share-open-described")
        defer { scratch.remove() }
        #expect(mkdir("\(scratch.path)/folder", 0o755) == 0)
        #expect(mkfifo("\(scratch.path)/fifo", 0o644) == 0)
        #expect(symlink("/etc/passwd", "\(scratch.path)/link") == 0)
        let root = try ConfinedRoot(openingDirectoryAt: scratch.path)
        let cases: [(String, SandboxError.Code)] = [
            ("folder", .isADirectory), ("fifo", .notARegularFile), ("missing", .notFound),
        ]
        for (name, code) in cases {
            let error = #expect(throws: SandboxError.self, "\(name)") {
                _ = try root.openFileDescribed(forReadingAt: ContainerPath(name))
            }
            #expect(error?.code == code, "\(name): \(String(describing: error))")
        }
        #expect(throws: SandboxError.self) { _ = try root.openFileDescribed(forReadingAt: ContainerPath("link")) }
    }
}
