import Foundation
import Glibc
import SandboxCore
import SystemPackage
import Testing

/// Deterministic pseudo-random bytes (a linear congruential generator), so failures reproduce.
func pseudoRandomBytes(_ count: Int, seed: UInt64 = 0x5eed) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 33)
    }
}

@Suite("File operations")
struct FileOperationTests {
    // MARK: Directories

    @Test("createDirectory with and without intermediates", arguments: bothResolutions)
    func createDirectory(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f")
        let root = try tmp.root(resolution)
        #expect(try root.createDirectory(at: cpath("a")) == 1)
        #expect(TemporaryDirectory.hostType(tmp.host("a")) == S_IFDIR)
        expectError(.alreadyExists) { try root.createDirectory(at: cpath("a")) }
        expectError(.alreadyExists) { try root.createDirectory(at: cpath("f")) }
        expectError(.notFound) { try root.createDirectory(at: cpath("x/y")) }
        #expect(!TemporaryDirectory.hostExists(tmp.host("x")))
        #expect(try root.createDirectory(at: cpath("x/y/z"), withIntermediateDirectories: true) == 3)
        #expect(try root.createDirectory(at: cpath("x/y/z"), withIntermediateDirectories: true) == 0)
        #expect(try root.createDirectory(at: cpath("x/y/z/v/w/"), withIntermediateDirectories: true) == 2)
        #expect(try root.createDirectory(at: cpath("a"), withIntermediateDirectories: true) == 0)
        #expect(try root.createDirectory(at: cpath("x/../n/m"), withIntermediateDirectories: true) == 2)
        #expect(TemporaryDirectory.hostType(tmp.host("n/m")) == S_IFDIR)
        #expect(TemporaryDirectory.hostType(tmp.host("x/y/z/v/w")) == S_IFDIR)
        // A file in the way.
        expectError(.notADirectory) { try root.createDirectory(at: cpath("f/sub"), withIntermediateDirectories: true) }
        expectError(.notADirectory) { try root.createDirectory(at: cpath("f"), withIntermediateDirectories: true) }
        expectError(.notADirectory) { try root.createDirectory(at: cpath("f/sub")) }
        // The root itself.
        expectError(.invalidPath) { try root.createDirectory(at: .root) }
        #expect(try root.createDirectory(at: .root, withIntermediateDirectories: true) == 0)
        // Through an in-container directory symlink.
        try tmp.makeSymlink("la", to: "a")
        #expect(try root.createDirectory(at: cpath("la/b/c"), withIntermediateDirectories: true) == 2)
        #expect(TemporaryDirectory.hostType(tmp.host("a/b/c")) == S_IFDIR)
        // Permissions are applied (less the umask, which leaves 0o700 alone).
        #expect(try root.createDirectory(at: cpath("private"), permissions: FilePermissions(rawValue: 0o700)) == 1)
        #expect(try root.attributes(at: cpath("private"))?.permissions.rawValue == 0o700)
    }

    // MARK: Contents

    @Test("Write and read round trip with every option", arguments: bothResolutions)
    func writeReadRoundTrip(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        let root = try tmp.root(resolution)
        let optionSets: [WriteOptions] = [
            [], .atomic, .durable, [.atomic, .durable], .withoutOverwriting,
            [.atomic, .withoutOverwriting], [.atomic, .durable, .withoutOverwriting],
        ]
        for (index, options) in optionSets.enumerated() {
            for size in [0, 1, 4095, 300_000] {
                let bytes = pseudoRandomBytes(size, seed: UInt64(index * 1000 + size))
                let path = try cpath("file-\(index)-\(size)")
                try root.writeContents(bytes, to: path, options: options)
                #expect(try root.readContents(of: path) == bytes, "options \(options.rawValue) size \(size)")
                #expect(tmp.read(path.description) == bytes)
                #expect(try root.fileSize(at: path) == Int64(size))
            }
        }
        // Replacing with something shorter leaves nothing of the old contents.
        for options in [WriteOptions(), .atomic] {
            try root.writeContents(pseudoRandomBytes(10_000), to: cpath("shrink"), options: options)
            try root.writeContents(Array("short".utf8), to: cpath("shrink"), options: options)
            #expect(try root.readContents(of: cpath("shrink")) == Array("short".utf8))
        }
        // Atomic writes leave no temporary names behind.
        let names = Set(try root.contentsOfDirectory(at: .root).map(\.name))
        #expect(names.allSatisfy { !$0.hasPrefix(".") }, "\(names.filter { $0.hasPrefix(".") })")
        #expect(names.count == optionSets.count * 4 + 1)
    }

    @Test("An atomic replacement keeps the file's permissions and gives a new inode", arguments: bothResolutions)
    func atomicReplaceKeepsPermissions(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        let root = try tmp.root(resolution)
        let path = try cpath("doc")
        try root.writeContents(Array("one".utf8), to: path)
        try root.setPermissions(FilePermissions(rawValue: 0o604), at: path)
        let first = try #require(try root.attributes(at: path))
        try root.writeContents(Array("two".utf8), to: path, options: [.atomic, .durable])
        let second = try #require(try root.attributes(at: path))
        #expect(second.permissions.rawValue == 0o604)
        #expect(second.inode != first.inode, "an atomic write publishes a new inode")
        #expect(try root.readContents(of: path) == Array("two".utf8))
        try root.setPermissions(FilePermissions(rawValue: 0o640), at: path)
        // In place: same inode, same permissions.
        try root.writeContents(Array("three".utf8), to: path, options: [])
        let third = try #require(try root.attributes(at: path))
        #expect(third.inode == second.inode)
        #expect(third.permissions.rawValue == 0o640)
        // A new file is private to its owner, whatever the umask (issue 26, item 13).
        try root.writeContents(Array("x".utf8), to: cpath("new"))
        #expect(try root.attributes(at: cpath("new"))?.permissions.rawValue == 0o600)
        try root.createDirectory(at: cpath("folder"))
        #expect(try root.attributes(at: cpath("folder"))?.permissions.rawValue == 0o700)
    }

    @Test("withoutOverwriting refuses an existing file and keeps it", arguments: bothResolutions)
    func withoutOverwriting(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f", "original\n")
        try tmp.makeDirectory("dir")
        let root = try tmp.root(resolution)
        for options: WriteOptions in [
            .withoutOverwriting, [.atomic, .withoutOverwriting], [.atomic, .durable, .withoutOverwriting],
        ] {
            expectError(.alreadyExists, "options \(options.rawValue)") {
                try root.writeContents(Array("new".utf8), to: cpath("f"), options: options)
            }
            #expect(tmp.read("f") == Array("original\n".utf8))
        }
        try root.writeContents(Array("fresh".utf8), to: cpath("g"), options: [.atomic, .withoutOverwriting])
        #expect(tmp.read("g") == Array("fresh".utf8))
        // A directory is never replaced by a file.
        for options: WriteOptions in [[], .atomic, .withoutOverwriting] {
            expectError(.isADirectory) { try root.writeContents(Array("x".utf8), to: cpath("dir"), options: options) }
        }
        expectError(.isADirectory) { _ = try root.readContents(of: cpath("dir")) }
        expectError(.notFound) { try root.writeContents(Array("x".utf8), to: cpath("missing/f")) }
        expectError(.notFound) { _ = try root.readContents(of: cpath("missing")) }
        expectError(.notADirectory) { _ = try root.readContents(of: cpath("f/")) }
        expectError(.invalidPath) { try root.writeContents(Array("x".utf8), to: .root) }
    }

    @Test("readContents refuses files larger than maximumSize", arguments: bothResolutions)
    func readMaximumSize(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        let bytes = pseudoRandomBytes(100)
        try tmp.makeFile("f", bytes: bytes)
        try tmp.makeFile("empty", bytes: [])
        let root = try tmp.root(resolution)
        expectError(.fileTooLarge) { _ = try root.readContents(of: cpath("f"), maximumSize: 99) }
        expectError(.fileTooLarge) { _ = try root.readContents(of: cpath("f"), maximumSize: 0) }
        #expect(try root.readContents(of: cpath("f"), maximumSize: 100) == bytes)
        #expect(try root.readContents(of: cpath("f"), maximumSize: 101) == bytes)
        #expect(try root.readContents(of: cpath("f"), maximumSize: 1 << 20) == bytes)
        #expect(try root.readContents(of: cpath("empty"), maximumSize: 0) == [])
        #expect(try root.readContents(of: cpath("empty")) == [])
    }

    // MARK: Removal

    /// `t/` with 8 items beneath it: a, b, sub/c, sub/deeper/d, empty/, link -> a.
    private func makeTree(_ tmp: TemporaryDirectory, at base: String = "t") throws {
        try tmp.makeFile("\(base)/a", "a\n")
        try tmp.makeFile("\(base)/b", "bb\n")
        try tmp.makeFile("\(base)/sub/c", "ccc\n")
        try tmp.makeFile("\(base)/sub/deeper/d", "dddd\n")
        try tmp.makeDirectory("\(base)/empty")
        try tmp.makeSymlink("\(base)/link", to: "a")
    }

    @Test("removeItem counts what it removed", arguments: bothResolutions)
    func removeCounts(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f")
        try makeTree(tmp)
        try makeTree(tmp, at: "u")
        try tmp.makeDirectory("emptydir")
        let root = try tmp.root(resolution)
        #expect(try root.removeItem(at: cpath("f")) == 1)
        #expect(!TemporaryDirectory.hostExists(tmp.host("f")))
        #expect(try root.removeItem(at: cpath("f")) == 0)
        #expect(try root.removeItem(at: cpath("f"), recursively: true) == 0)
        #expect(try root.removeItem(at: cpath("missing/deeper")) == 0)
        expectError(.directoryNotEmpty) { try root.removeItem(at: cpath("t")) }
        #expect(TemporaryDirectory.hostExists(tmp.host("t/sub/deeper/d")))
        #expect(try root.removeItem(at: cpath("t"), recursively: true) == 9)
        #expect(!TemporaryDirectory.hostExists(tmp.host("t")))
        #expect(try root.removeItem(at: cpath("emptydir")) == 1)
        #expect(try root.removeItem(at: cpath("u/link")) == 1)
        #expect(TemporaryDirectory.hostExists(tmp.host("u/a")), "removing a symlink leaves its target")
        #expect(try root.removeContents(of: cpath("u")) == 7)
        #expect(TemporaryDirectory.hostType(tmp.host("u")) == S_IFDIR)
        #expect(try root.contentsOfDirectory(at: cpath("u")).isEmpty)
        expectError(.invalidPath) { try root.removeItem(at: .root, recursively: true) }
        expectError(.invalidPath) { try root.removeItem(at: cpath("u/..")) }
        expectError(.notFound) { try root.removeContents(of: cpath("missing")) }
    }

    @Test("Recursive removal of large directories (several getdents batches)", arguments: bothResolutions)
    func removeLargeDirectory(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        let filler = String(repeating: "n", count: 60)
        try tmp.makeDirectory("big/nested")
        for index in 0..<3000 {
            let name = "\(filler)-\(index)"
            let fd = creat(tmp.host("big/\(name)"), 0o644)
            guard fd >= 0 else { throw HostError("creat", errno) }
            close(fd)
            if index % 10 == 0 {
                try tmp.makeDirectory("big/nested/d\(index)")
                try tmp.makeFile("big/nested/d\(index)/x", "x")
            }
        }
        let root = try tmp.root(resolution)
        let size = try #require(try root.recursiveSize(at: cpath("big")))
        #expect(size.fileCount == 3000 + 300)
        #expect(size.directoryCount == 1 + 300)
        var count = 0
        try root.enumerate(at: cpath("big"), recursive: true) { _ in count += 1 }
        #expect(count == 3000 + 1 + 300 * 2)
        #expect(try root.removeItem(at: cpath("big"), recursively: true) == 3000 + 1 + 300 * 2 + 1)
        #expect(!TemporaryDirectory.hostExists(tmp.host("big")))
    }

    // MARK: Moves

    @Test("moveItem and renameItem", arguments: bothResolutions)
    func moveAndRename(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f", "f\n")
        try tmp.makeFile("g", "g\n")
        try tmp.makeFile("d/x", "x\n")
        try tmp.makeFile("full/y", "y\n")
        let root = try tmp.root(resolution)
        expectError(.alreadyExists) { try root.moveItem(from: cpath("f"), to: cpath("g")) }
        #expect(tmp.read("f") == Array("f\n".utf8))
        #expect(tmp.read("g") == Array("g\n".utf8))
        try root.moveItem(from: cpath("f"), to: cpath("g"), replacingExisting: true)
        #expect(!TemporaryDirectory.hostExists(tmp.host("f")))
        #expect(tmp.read("g") == Array("f\n".utf8))
        try root.moveItem(from: cpath("g"), to: cpath("d/g"))
        #expect(tmp.read("d/g") == Array("f\n".utf8))
        try root.renameItem(at: cpath("d/g"), to: "h")
        #expect(tmp.read("d/h") == Array("f\n".utf8))
        expectError(.alreadyExists) { try root.renameItem(at: cpath("d/h"), to: "x") }
        expectError(.notFound) { try root.moveItem(from: cpath("missing"), to: cpath("z")) }
        expectError(.notFound) { try root.moveItem(from: cpath("d/h"), to: cpath("missing/z")) }
        // Directories.
        try root.moveItem(from: cpath("d"), to: cpath("e"))
        #expect(tmp.read("e/x") == Array("x\n".utf8))
        expectError(.invalidArgument) { try root.moveItem(from: cpath("e"), to: cpath("e/inside")) }
        expectError(.invalidArgument) {
            try root.moveItem(from: cpath("e"), to: cpath("e/inside"), replacingExisting: true)
        }
        expectError(.alreadyExists) { try root.moveItem(from: cpath("e"), to: cpath("full")) }
        expectError(.directoryNotEmpty) {
            try root.moveItem(from: cpath("e"), to: cpath("full"), replacingExisting: true)
        }
        try tmp.makeDirectory("vacant")
        try root.moveItem(from: cpath("e"), to: cpath("vacant"), replacingExisting: true)
        #expect(tmp.read("vacant/x") == Array("x\n".utf8))
        expectError(.invalidPath) { try root.renameItem(at: cpath("vacant"), to: "") }
        expectError(.invalidPath) { try root.renameItem(at: cpath("vacant"), to: ".") }
        expectError(.invalidPath) { try root.renameItem(at: .root, to: "x") }
        // A symlink is moved as itself.
        try tmp.makeSymlink("l", to: "vacant/x")
        try root.moveItem(from: cpath("l"), to: cpath("full/l"))
        #expect(TemporaryDirectory.hostType(tmp.host("full/l")) == S_IFLNK)
        #expect(TemporaryDirectory.hostExists(tmp.host("vacant/x")))
    }

    // MARK: Copies

    @Test("copyItem copies a file with its permissions and extended attributes", arguments: bothResolutions)
    func copyFile(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        let bytes = pseudoRandomBytes(200_000)
        try tmp.makeFile("f", bytes: bytes)
        try tmp.makeFile("empty", bytes: [])
        try tmp.makeSymlink("lf", to: "f")
        let root = try tmp.root(resolution)
        try root.setPermissions(FilePermissions(rawValue: 0o640), at: cpath("f"))
        try root.setExtendedAttribute(named: "user.color", to: Array("blue".utf8), at: cpath("f"))
        try root.setExcludedFromBackup(true, at: cpath("f"))
        #expect(try root.copyItem(from: cpath("f"), to: cpath("g")) == 1)
        #expect(tmp.read("g") == bytes)
        #expect(try root.attributes(at: cpath("g"))?.permissions.rawValue == 0o640)
        #expect(try root.extendedAttribute(named: "user.color", at: cpath("g")) == Array("blue".utf8))
        #expect(try root.isExcludedFromBackup(at: cpath("g")))
        #expect(try root.attributes(at: cpath("g"))?.inode != root.attributes(at: cpath("f"))?.inode)
        #expect(try root.copyItem(from: cpath("empty"), to: cpath("empty2")) == 1)
        #expect(tmp.read("empty2") == [])
        // A symlink given as the source is followed (inside the container).
        #expect(try root.copyItem(from: cpath("lf"), to: cpath("h")) == 1)
        #expect(TemporaryDirectory.hostType(tmp.host("h")) == S_IFREG)
        #expect(tmp.read("h") == bytes)
        expectError(.alreadyExists) { try root.copyItem(from: cpath("f"), to: cpath("g")) }
        expectError(.notFound) { try root.copyItem(from: cpath("missing"), to: cpath("z")) }
        expectError(.notFound) { try root.copyItem(from: cpath("f"), to: cpath("missing/z")) }
    }

    @Test("copyItem copies a tree: links as links, attributes kept, count returned", arguments: bothResolutions)
    func copyTree(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try makeTree(tmp)
        try tmp.makeSymlink("t/sub/up", to: "../../outside/secret")
        let root = try tmp.root(resolution)
        try root.setExtendedAttribute(named: "user.tag", to: [42], at: cpath("t/sub/c"))
        try root.setExcludedFromBackup(true, at: cpath("t/sub"))
        try root.setPermissions(FilePermissions(rawValue: 0o750), at: cpath("t/sub/deeper"))
        #expect(try root.copyItem(from: cpath("t"), to: cpath("copy")) == 10)
        for file in ["a", "b", "sub/c", "sub/deeper/d"] {
            #expect(tmp.read("copy/" + file) == tmp.read("t/" + file), "\(file)")
        }
        #expect(TemporaryDirectory.hostType(tmp.host("copy/link")) == S_IFLNK)
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: tmp.host("copy/link")) == "a")
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: tmp.host("copy/sub/up")) == "../../outside/secret"
        )
        #expect(TemporaryDirectory.hostType(tmp.host("copy/empty")) == S_IFDIR)
        #expect(try root.extendedAttribute(named: "user.tag", at: cpath("copy/sub/c")) == [42])
        #expect(try root.attributes(at: cpath("copy/sub/deeper"))?.permissions.rawValue == 0o750)
        // Directory xattrs are not copied by the core (files' are); record what happens, whichever.
        _ = try root.isExcludedFromBackup(at: cpath("copy/sub"))
        expectError(.alreadyExists) { try root.copyItem(from: cpath("t"), to: cpath("copy")) }
        #expect(TemporaryDirectory.hostRead(tmp.secret) == TemporaryDirectory.secretContents)
    }

    @Test("Copying a directory into itself terminates and skips its own copy", arguments: bothResolutions)
    func copyIntoItself(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("d/x", "x")
        try tmp.makeFile("d/y", "y")
        try tmp.makeFile("d/sub/z", "z")
        let root = try tmp.root(resolution)
        #expect(try root.copyItem(from: cpath("d"), to: cpath("d/copy")) == 5)
        #expect(!TemporaryDirectory.hostExists(tmp.host("d/copy/copy")))
        #expect(tmp.read("d/copy/sub/z") == Array("z".utf8))
        // d, x, y, sub, sub/z, and the first copy's five items; never copy2 itself.
        #expect(try root.copyItem(from: cpath("d"), to: cpath("d/sub/copy2")) == 10)
        #expect(!TemporaryDirectory.hostExists(tmp.host("d/sub/copy2/sub/copy2")))
        #expect(tmp.read("d/sub/copy2/copy/x") == Array("x".utf8))
    }

    @Test("Imports from the host and streaming out", arguments: bothResolutions)
    func importAndStream(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        let bytes = pseudoRandomBytes(3 << 20)
        let hostFile = tmp.path + "/big-host-file"
        try TemporaryDirectory.hostWrite(hostFile, bytes)
        let hostTree = tmp.path + "/host-tree"
        try TemporaryDirectory.hostMakeDirectory(hostTree)
        try TemporaryDirectory.hostMakeDirectory(hostTree + "/inner")
        try TemporaryDirectory.hostWrite(hostTree + "/inner/file", Array("tree file".utf8))
        #expect(symlink("inner/file", hostTree + "/link") == 0)
        let root = try tmp.root(resolution)
        #expect(try root.importFile(fromHost: hostFile, to: cpath("imported")) == Int64(bytes.count))
        #expect(tmp.read("imported") == bytes)
        #expect(
            try root.importFile(fromHost: tmp.payload, to: cpath("imported"), options: .atomic)
                == Int64(TemporaryDirectory.payloadContents.count))
        #expect(tmp.read("imported") == TemporaryDirectory.payloadContents)
        expectError(.alreadyExists) {
            try root.importFile(fromHost: tmp.payload, to: cpath("imported"), options: [.atomic, .withoutOverwriting])
        }
        expectError(.notFound) { try root.importFile(fromHost: tmp.path + "/missing", to: cpath("x")) }
        expectError(.isADirectory) { try root.importFile(fromHost: hostTree, to: cpath("x")) }
        #expect(try root.importItem(fromHost: hostTree, to: cpath("tree")) == 4)
        #expect(tmp.read("tree/inner/file") == Array("tree file".utf8))
        #expect(TemporaryDirectory.hostType(tmp.host("tree/link")) == S_IFLNK)
        expectError(.alreadyExists) { try root.importItem(fromHost: hostTree, to: cpath("tree")) }

        // Streaming out to a file and to a pipe.
        try root.writeContents(bytes, to: cpath("big"))
        let outPath = tmp.path + "/streamed"
        let out = Glibc.open(outPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        try #require(out >= 0)
        #expect(try root.copyContents(of: cpath("big"), to: FileDescriptor(rawValue: out)) == Int64(bytes.count))
        Glibc.close(out)
        #expect(TemporaryDirectory.hostRead(outPath) == bytes)
        var pipeFDs: [Int32] = [0, 0]
        try #require(pipe(&pipeFDs) == 0)
        let small = Array("through a pipe\n".utf8)
        try root.writeContents(small, to: cpath("small"))
        #expect(
            try root.copyContents(of: cpath("small"), to: FileDescriptor(rawValue: pipeFDs[1])) == Int64(small.count))
        Glibc.close(pipeFDs[1])
        var received = [UInt8](repeating: 0, count: 100)
        let count = read(pipeFDs[0], &received, received.count)
        Glibc.close(pipeFDs[0])
        #expect(Array(received.prefix(max(count, 0))) == small)
    }

    // MARK: Sizes and enumeration

    @Test("recursiveSize agrees with independently computed totals; hard links count once", arguments: bothResolutions)
    func recursiveSizeTotals(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        let sizes = ["s/zero": 0, "s/one": 1, "s/page": 4096, "s/sub/ten": 10_000, "s/sub/deep/big": 123_457]
        for (path, size) in sizes {
            try tmp.makeFile(path, bytes: pseudoRandomBytes(size))
        }
        try tmp.makeDirectory("s/emptydir")
        try tmp.makeSymlink("s/link", to: "sub/ten")
        try #require(link(tmp.host("s/sub/ten"), tmp.host("s/hard")) == 0)
        try #require(link(tmp.host("s/sub/ten"), tmp.host("s/sub/deep/hard2")) == 0)
        let root = try tmp.root(resolution)
        let size = try #require(try root.recursiveSize(at: cpath("s")))
        let expectedLogical = Int64(sizes.values.reduce(0, +)) + Int64("sub/ten".utf8.count)
        #expect(size.logicalBytes == expectedLogical)
        #expect(size.fileCount == sizes.count + 1)
        #expect(size.directoryCount == 3)
        // Allocated bytes: st_blocks × 512 of every item, including the directories, hard links once.
        var seen = Set<UInt64>()
        var allocated: Int64 = 0
        func visit(_ path: String) {
            guard let info = TemporaryDirectory.hostLstat(path) else { return }
            guard seen.insert(UInt64(info.st_ino)).inserted else { return }
            allocated += Int64(info.st_blocks) * 512
            if info.st_mode & S_IFMT == S_IFDIR {
                for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
                    visit(path + "/" + name)
                }
            }
        }
        visit(tmp.host("s"))
        #expect(size.allocatedBytes == allocated)
        // A file alone, a symlink to it (followed), nothing at all.
        let file = try #require(try root.recursiveSize(at: cpath("s/sub/deep/big")))
        #expect(file.logicalBytes == 123_457)
        #expect(file.fileCount == 1)
        #expect(try root.recursiveSize(at: cpath("s/link"))?.logicalBytes == 10_000)
        #expect(try root.recursiveSize(at: cpath("missing")) == nil)
        let empty = try #require(try root.recursiveSize(at: cpath("s/emptydir")))
        #expect(empty.fileCount == 0 && empty.directoryCount == 0 && empty.logicalBytes == 0)
    }

    @Test("enumerate and the listing helpers", arguments: bothResolutions)
    func enumeration(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try makeTree(tmp)
        try tmp.makeSymlink("t/sublink", to: "sub")
        let root = try tmp.root(resolution)
        var visited: [DirectoryEntry] = []
        try root.enumerate(at: cpath("t"), recursive: true) { visited.append($0) }
        #expect(visited.count == 9)
        #expect(
            Set(visited.map(\.path.description)) == [
                "t/a", "t/b", "t/sub", "t/sub/c", "t/sub/deeper", "t/sub/deeper/d",
                "t/empty", "t/link", "t/sublink",
            ])
        // Pre-order: every item comes after its directory.
        let order = Dictionary(
            uniqueKeysWithValues: visited.enumerated().map { ($0.element.path.description, $0.offset) })
        for entry in visited where entry.path.components.count > 2 {
            let parent = try #require(order[entry.path.parent.description])
            #expect(parent < order[entry.path.description]!, "\(entry.path) before its directory")
        }
        #expect(visited.first { $0.name == "sublink" }?.type == .symlink)
        #expect(visited.allSatisfy { $0.attributes == nil })
        var shallow: [DirectoryEntry] = []
        try root.enumerate(at: cpath("t"), recursive: false, prefetchingAttributes: true) { shallow.append($0) }
        #expect(Set(shallow.map(\.name)) == ["a", "b", "sub", "empty", "link", "sublink"])
        #expect(shallow.first { $0.name == "b" }?.attributes?.size == 3)
        #expect(shallow.first { $0.name == "link" }?.attributes?.type == .symlink)
        #expect(try root.contentsOfDirectory(at: cpath("t"), recursive: true).count == 9)
        #expect(Set(try root.subdirectoryNames(at: cpath("t"))) == ["sub", "empty"])
        #expect(Set(try root.subdirectoryPaths(at: cpath("t"))) == [try cpath("t/sub"), try cpath("t/empty")])
        #expect(Set(try root.fileNames(at: cpath("t"))) == ["a", "b"])
        #expect(Set(try root.filePaths(at: cpath("t/sub"))) == [try cpath("t/sub/c")])
        // Through an in-container symlink, the directory it names is listed.
        #expect(Set(try root.contentsOfDirectory(at: cpath("t/sublink")).map(\.name)) == ["c", "deeper"])
        expectError(.notADirectory) { _ = try root.contentsOfDirectory(at: cpath("t/a")) }
        expectError(.notFound) { _ = try root.contentsOfDirectory(at: cpath("t/missing")) }
        // An error thrown by the body ends the walk.
        var calls = 0
        expectError(.interrupted) {
            try root.enumerate(at: cpath("t"), recursive: true) { _ throws(SandboxError) in
                calls += 1
                throw SandboxError(.interrupted, "stop")
            }
        }
        #expect(calls == 1)
    }

    // MARK: Special files

    @Test("A FIFO is refused for data I/O without blocking", arguments: bothResolutions)
    func fifo(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try #require(mkfifo(tmp.host("p"), 0o644) == 0)
        try tmp.makeSymlink("lp", to: "p")
        let root = try tmp.root(resolution)
        for path in ["p", "lp"] {
            expectError(.notARegularFile, "read \(path)") { _ = try root.readContents(of: cpath(path)) }
            expectError(.notARegularFile, "stream \(path)") {
                let sink = Glibc.open("/dev/null", O_WRONLY | O_CLOEXEC)
                defer { Glibc.close(sink) }
                try root.copyContents(of: cpath(path), to: FileDescriptor(rawValue: sink))
            }
            expectError(.notARegularFile, "copy \(path)") { try root.copyItem(from: cpath(path), to: cpath("copy")) }
            expectError(.notARegularFile, "write in place \(path)") {
                try root.writeContents([1], to: cpath(path), options: [])
            }
        }
        #expect(try root.attributes(at: cpath("p"))?.type == .fifo)
        #expect(try root.attributes(at: cpath("lp"))?.type == .fifo)
        #expect(try root.contentsOfDirectory(at: .root).first { $0.name == "p" }?.type == .fifo)
        #expect(try root.fileExists(at: cpath("p")) == false)
        #expect(try root.itemExists(at: cpath("p")))
        #expect(!TemporaryDirectory.hostExists(tmp.host("copy")))
        #expect(try root.removeItem(at: cpath("p")) == 1)
    }

    // MARK: Existence

    @Test("itemExists, fileExists, directoryExists, fileSize", arguments: bothResolutions)
    func existence(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f", "12345")
        try tmp.makeDirectory("d")
        try tmp.makeSymlink("lf", to: "f")
        try tmp.makeSymlink("ld", to: "d")
        try tmp.makeSymlink("dangling", to: "missing")
        let root = try tmp.root(resolution)
        #expect(try root.itemExists(at: cpath("f")))
        #expect(try root.fileExists(at: cpath("f")))
        #expect(try !root.directoryExists(at: cpath("f")))
        #expect(try root.directoryExists(at: cpath("d")))
        #expect(try root.directoryExists(at: .root))
        #expect(try root.fileExists(at: cpath("lf")))
        #expect(try root.directoryExists(at: cpath("ld")))
        #expect(try !root.itemExists(at: cpath("dangling")))
        #expect(try root.attributes(at: cpath("dangling"), followingSymlink: false)?.type == .symlink)
        #expect(try !root.itemExists(at: cpath("missing")))
        #expect(try !root.itemExists(at: cpath("missing/deeper")))
        #expect(try root.fileSize(at: cpath("f")) == 5)
        #expect(try root.fileSize(at: cpath("lf")) == 5)
        #expect(try root.fileSize(at: cpath("missing")) == nil)
        expectError(.notADirectory) { _ = try root.itemExists(at: cpath("f/x")) }
    }

    // MARK: ContainerPath

    @Test("ContainerPath validation")
    func containerPathValidation() throws {
        expectError(.invalidPath) { _ = try ContainerPath("") }
        let longest = String(repeating: "n", count: 255)
        #expect(try ContainerPath(longest).components == [longest])
        expectError(.nameTooLong) { _ = try ContainerPath(String(repeating: "n", count: 256)) }
        expectError(.nameTooLong) { _ = try ContainerPath("a/" + String(repeating: "é", count: 128)) }  // 256 bytes
        // 4019 bytes
        let longPath = Array(repeating: String(repeating: "p", count: 200), count: 20).joined(separator: "/")
        #expect(try ContainerPath(longPath).components.count == 20)
        expectError(.nameTooLong) { _ = try ContainerPath(longPath + "/" + String(repeating: "q", count: 100)) }
        expectError(.nameTooLong) { _ = try ContainerPath(String(repeating: "a/", count: 2048)) }
        expectError(.escapesContainer) { _ = try ContainerPath("a/../..") }
        expectError(.escapesContainer) { _ = try ContainerPath("../a") }
        expectError(.escapesContainer) { _ = try ContainerPath("/a") }
        expectError(.escapesContainer) { _ = try ContainerPath("a\u{0}b") }

        let normalized = try ContainerPath("./a/./b/")
        #expect(normalized.components == ["a", "b"])
        #expect(normalized.requiresDirectory)
        #expect(normalized.description == "a/b")
        #expect(try ContainerPath("a//b///c") == ContainerPath("a/b/c"))
        #expect(try ContainerPath("a/../b").components == ["a", "..", "b"])
        #expect(try ContainerPath(".").isRoot)
        #expect(try ContainerPath("./").isRoot)
        #expect(ContainerPath.root.description == ".")
        #expect(try ContainerPath("...").components == ["..."])
        #expect(try ContainerPath("a/b").parent.components == ["a"])
        #expect(try ContainerPath("a/b").parent.requiresDirectory)
        #expect(try ContainerPath("a").parent.isRoot)
        #expect(ContainerPath.root.parent.isRoot)
        #expect(try ContainerPath("a/b").lastComponent == "b")
        #expect(ContainerPath.root.lastComponent == nil)
        #expect(try ContainerPath("a/b/c").isDescendant(of: ContainerPath("a/b")))
        #expect(try ContainerPath("a/b").isDescendant(of: ContainerPath("a/b")))
        #expect(try !ContainerPath("a/bc").isDescendant(of: ContainerPath("a/b")))
        #expect(try ContainerPath("a").isDescendant(of: .root))
        #expect(try ContainerPath("a/b") < ContainerPath("a/c"))
        #expect(try ContainerPath("a") < ContainerPath("a/b"))
        #expect(ContainerPath(constant: "Library/Caches").components == ["Library", "Caches"])

        #expect(try ContainerPath("a").appending("b") == ContainerPath("a/b"))
        expectError(.invalidPath) { _ = try ContainerPath("a").appending("b/c") }
        expectError(.invalidPath) { _ = try ContainerPath("a").appending("..") }
        expectError(.invalidPath) { _ = try ContainerPath("a").appending(".") }
        expectError(.invalidPath) { _ = try ContainerPath("a").appending("") }
        expectError(.nameTooLong) { _ = try ContainerPath("a").appending(String(repeating: "x", count: 256)) }
        #expect(try ContainerPath.validateName("ok.txt") == "ok.txt")
    }
}
