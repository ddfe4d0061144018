import Foundation
import Glibc
import SandboxCore
import Testing

/// The walker itself: order, the descriptor window, and directories moved under it.
@Suite("Tree walk")
struct TreeWalkTests {
    /// Records the walk and, on meeting `trigger`, runs `action` once.
    struct RecordingVisitor: TreeVisitor {
        var visited: [String] = []
        var left: [String] = []
        var trigger: String?
        var action: () -> Void = {}

        mutating func visit(_ entry: WalkEntry, at location: borrowing WalkLocation) throws(SandboxError) -> Bool {
            let name = entry.fileName.string ?? "?"
            visited.append(location.display(entry.fileName))
            if name == trigger {
                trigger = nil
                action()
            }
            return entry.type == DT_DIR
        }

        mutating func leave(
            _ directory: CInt, named name: FileName, in parent: CInt, mirror: CInt?, at location: borrowing WalkLocation
        ) throws(SandboxError) {
            left.append(location.display())
        }
    }

    @Test("with a window of two directories, a ten-level tree is walked whole, each directory left after its contents")
    func smallWindow() throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("a/b/c/d/e/f/g/h/i/j/leaf")
        try tmp.makeFile("a/b/side")
        let root = try tmp.root(.openat2)
        let directory = try root.openDirectory(cpath("a"))
        var walk = try TreeWalk(root: directory.rawValue, at: cpath("a"), maximumOpenDescriptors: 2)
        var visitor = RecordingVisitor()
        try walk.run(&visitor)
        #expect(visitor.visited.count == 11)
        #expect(visitor.visited.contains("a/b/c/d/…(4 more levels)…/i/j/leaf"))
        #expect(visitor.left.first?.hasSuffix("/j") == true)
        #expect(visitor.left.last == "a/b")
    }

    @Test("a directory moved mid-walk stops the walk where it would have gone elsewhere")
    func movedDirectory() throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("a/b/c/d/e/f/g/h/i/j/leaf")
        try tmp.makeDirectory("elsewhere")
        let root = try tmp.root(.openat2)
        let directory = try root.openDirectory(.root)
        var walk = try TreeWalk(root: directory.rawValue, at: .root, maximumOpenDescriptors: 4)
        var visitor = RecordingVisitor()
        visitor.trigger = "leaf"
        let from = tmp.host("a/b")
        let to = tmp.host("elsewhere/b")
        visitor.action = { _ = rename(from, to) }
        let error = expectError(.concurrentModification) { try walk.run(&visitor) }
        #expect(error?.path == "a")
        #expect(TemporaryDirectory.hostExists(tmp.host("elsewhere/b/c/d/e/f/g/h/i/j/leaf")))
    }
}
