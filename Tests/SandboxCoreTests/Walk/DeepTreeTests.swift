import Foundation
import Glibc
import SandboxCore
import Testing

/// Trees far deeper than a path can name are walked with an explicit stack and a bounded number of
/// open descriptors (issue 17, item 4).
@Suite("Deep trees")
struct DeepTreeTests {
    /// Makes `levels` nested directories named `d` inside the host directory `directory`, with a
    /// five-byte file `leaf` at the bottom: one descriptor at a time, as no path can reach the bottom.
    static func hostMakeChain(_ levels: Int, in directory: String) throws {
        var fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw HostError("open \(directory)", errno) }
        defer { close(fd) }
        for level in 0..<levels {
            guard mkdirat(fd, "d", 0o755) == 0 else { throw HostError("mkdirat at level \(level)", errno) }
            let next = openat(fd, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard next >= 0 else { throw HostError("openat at level \(level)", errno) }
            close(fd)
            fd = next
        }
        let leaf = openat(fd, "leaf", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard leaf >= 0 else { throw HostError("leaf", errno) }
        _ = write(leaf, "leaf\n", 5)
        close(leaf)
    }

    /// Descriptors this process has open now.
    static func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
    }

    @Test("a 15,000-level tree is measured, copied and removed")
    func fifteenThousandLevels() throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeDirectory("deep")
        try Self.hostMakeChain(15_000, in: tmp.host("deep"))
        let root = try tmp.root(.openat2)
        defer {
            // Cleanup only (a failed expectation must not leave a tree the host tools choke on).
            _ = try? root.removeItem(at: ContainerPath(constant: "deep"), recursively: true)
            _ = try? root.removeItem(at: ContainerPath(constant: "copy"), recursively: true)
        }

        let size = try #require(try root.recursiveSize(at: cpath("deep")))
        #expect(size.directoryCount == 15_000)
        #expect(size.fileCount == 1)
        #expect(size.logicalBytes == 5)

        #expect(try root.copyItem(from: cpath("deep"), to: cpath("copy")) == 15_002)
        let copied = try #require(try root.recursiveSize(at: cpath("copy")))
        #expect(copied.directoryCount == 15_000 && copied.fileCount == 1 && copied.logicalBytes == 5)

        #expect(try root.removeItem(at: cpath("copy"), recursively: true) == 15_002)
        #expect(!TemporaryDirectory.hostExists(tmp.host("copy")))
        #expect(try root.removeContents(of: cpath("deep")) == 15_001)
        #expect(try root.contentsOfDirectory(at: cpath("deep")).isEmpty)
    }

    @Test("enumeration fails, or stops and says so, where paths end")
    func enumerationAtThePathLimit() throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeDirectory("deep")
        try Self.hostMakeChain(3_000, in: tmp.host("deep"))
        let root = try tmp.root(.openat2)
        defer { _ = try? root.removeItem(at: ContainerPath(constant: "deep"), recursively: true) }

        var visited = 0
        let error = expectError(.nameTooLong) {
            try root.enumerate(at: cpath("deep"), recursive: true) { _ throws(SandboxError) in visited += 1 }
        }
        #expect(error?.path?.hasPrefix("deep/d/d/d/…(") == true)
        #expect(visited > 2_000)

        var flagged: [ContainerPath] = []
        var deepest = 0
        try root.enumerate(at: cpath("deep"), recursive: true, stoppingAtPathLimit: true) {
            entry throws(SandboxError) in
            deepest = max(deepest, entry.path.byteCount)
            if entry.contentsBeyondPathLimit { flagged.append(entry.path) }
        }
        #expect(flagged.count == 1)
        #expect(deepest <= ContainerPath.maximumLength)
        if let directory = flagged.first {
            #expect(directory.byteCount + 1 + FileName.maximumLength > ContainerPath.maximumLength)
            #expect(try root.recursiveSize(at: directory)?.fileCount == 1)
        }
    }

    @Test("a deep walk keeps a bounded number of descriptors open")
    func descriptorsStayBounded() throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeDirectory("deep")
        try Self.hostMakeChain(1_500, in: tmp.host("deep"))
        let root = try tmp.root(.openat2)
        defer { _ = try? root.removeItem(at: ContainerPath(constant: "deep"), recursively: true) }

        let before = Self.openDescriptorCount()
        var atBottom = 0
        try root.enumerate(at: cpath("deep"), recursive: true) { entry throws(SandboxError) in
            if entry.fileName.string == "leaf" { atBottom = Self.openDescriptorCount() }
        }
        // At most 16 for the walk; the margin absorbs tests running beside this one.
        #expect(atBottom > 0)
        #expect(atBottom - before < 400, "\(atBottom - before) more descriptors open at depth 1,500")
    }
}
