import Foundation
import Glibc
import SandboxCore
import Testing

/// The walk in name order (issue 31, `sandbox ls`): paths come out as ``ContainerPath`` sorts them,
/// one directory at a time, through a small descriptor window, and a tree changed under the walk is
/// skipped where it vanished or stops it where the walk would go elsewhere.
@Suite("Tree walk in name order")
struct NameOrderWalkTests {
    /// Names that sort around `/` (`a`, `a b`, `a-b`, `a.b`, `a0`), by bytes (`B` before `a`,
    /// `\xFF` last), with nested, empty and raw-named folders and links.
    private func plantTree(_ tmp: TemporaryDirectory) throws {
        for file in ["a/x", "a/c/deep", "a b", "a-b", "a.b", "B", "z/y/x/w", "z/a"] { try tmp.makeFile(file) }
        for directory in ["a0", "empty", "z/y/empty"] { try tmp.makeDirectory(directory) }
        try tmp.makeSymlink("link", to: "a")
        try RawNameTests.hostCreate([0xFF], in: tmp.host("z"), directory: true)
        try RawNameTests.hostCreate([0x61, 0xFF], in: tmp.host("z"))
        try RawNameTests.hostCreate(Array("e\u{301}".utf8), in: tmp.host(""))
        try RawNameTests.hostCreate(Array("\u{E9}".utf8), in: tmp.host(""), directory: true)
    }

    private func listed(_ root: ConfinedRoot, at path: ContainerPath, inNameOrder: Bool) throws -> [DirectoryEntry] {
        var entries: [DirectoryEntry] = []
        try root.enumerate(at: path, recursive: true, inNameOrder: inNameOrder) { entry throws(SandboxError) in
            entries.append(entry)
        }
        return entries
    }

    @Test("in name order, a tree comes out as its listing sorted by path, at the root and below a folder")
    func sortedOrder() throws {
        let tmp = try TemporaryDirectory()
        try plantTree(tmp)
        let root = try tmp.root(.openat2)
        for base in [ContainerPath.root, try cpath("z")] {
            let ordered = try listed(root, at: base, inNameOrder: true)
            let sorted = try listed(root, at: base, inNameOrder: false).sorted { $0.path < $1.path }
            #expect(ordered == sorted)
            #expect(ordered.count == (base.isRoot ? 21 : 7))
        }
        let names = try listed(root, at: .root, inNameOrder: true).map(\.path.description)
        #expect(Array(names.prefix(7)) == ["B", "a", "a/c", "a/c/deep", "a/x", "a b", "a-b"])
    }

    @Test("through a window of two descriptors, a deep tree's later siblings are visited after its depths, in order")
    func smallWindow() throws {
        let tmp = try TemporaryDirectory()
        var path = ""
        for level in ["a", "b", "c", "d", "e", "f", "g"] {
            path += level + "/"
            try tmp.makeFile(path + "z")
        }
        try tmp.makeFile(path + "leaf")
        let root = try tmp.root(.openat2)
        let directory = try root.openDirectory(.root)
        var walk = try TreeWalk(root: directory.rawValue, at: .root, order: .byName, maximumOpenDescriptors: 2)
        var visitor = TreeWalkTests.RecordingVisitor()
        try walk.run(&visitor)
        let expected = try listed(root, at: .root, inNameOrder: false).sorted { $0.path < $1.path }
        #expect(visitor.visited == expected.map { display($0.path) })
        #expect(visitor.visited.last == "a/z")  // read again after the depths, through a reopened "a"
    }

    /// The path as a walk's location displays it (levels past eight abbreviated).
    private func display(_ path: ContainerPath) -> String {
        let names = path.names.map(\.description)
        guard names.count > 8 else { return names.joined(separator: "/") }
        return (names.prefix(3) + ["…(\(names.count - 6) more levels)…"] + names.suffix(3)).joined(separator: "/")
    }

    @Test("a folder removed or renamed away after its directory was read is skipped, its contents never listed")
    func vanishedFolder() throws {
        for prefetching in [false, true] {
            let tmp = try TemporaryDirectory()
            try tmp.makeFile("a/x")
            try tmp.makeFile("b/inside")
            try tmp.makeFile("c/inside")
            try tmp.makeDirectory("elsewhere")
            let root = try tmp.root(.openat2)
            var seen: [String] = []
            try root.enumerate(at: .root, recursive: true, prefetchingAttributes: prefetching, inNameOrder: true) {
                entry throws(SandboxError) in
                seen.append(entry.path.description)
                if entry.path.description == "a/x" {
                    // Both after the root was read and sorted, before the walk reaches them.
                    _ = rename(tmp.host("b"), tmp.host("elsewhere/b"))
                    _ = rename(tmp.host("c/inside"), tmp.host("elsewhere/c"))
                    _ = rmdir(tmp.host("c"))
                }
            }
            // Without attributes, `b` and `c` were read as directories and are listed; their
            // contents, gone, are not. With them, the `statx` finds nothing: not listed either.
            let expected = prefetching ? ["a", "a/x", "elsewhere"] : ["a", "a/x", "b", "c", "elsewhere"]
            #expect(seen.filter { !$0.hasPrefix("elsewhere/") } == expected, "prefetching: \(prefetching)")
        }
    }

    @Test("a folder moved while the walk is deep inside it stops the walk where it would go elsewhere")
    func movedDirectory() throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("a/b/c/d/e/f/g/h/i/j/leaf")
        try tmp.makeFile("a/b/c/z")
        try tmp.makeDirectory("elsewhere")
        let root = try tmp.root(.openat2)
        let directory = try root.openDirectory(.root)
        var walk = try TreeWalk(root: directory.rawValue, at: .root, order: .byName, maximumOpenDescriptors: 4)
        var visitor = TreeWalkTests.RecordingVisitor()
        visitor.trigger = "leaf"
        let from = tmp.host("a/b")
        let to = tmp.host("elsewhere/b")
        visitor.action = { _ = rename(from, to) }
        let error = expectError(.concurrentModification) { try walk.run(&visitor) }
        // Back up through the moved folder (what the walk held), then refused at its old parent.
        #expect(error?.path == "a")
        #expect(visitor.visited.contains("a/b/c/z"))
        #expect(!visitor.visited.contains("elsewhere"))
    }
}
