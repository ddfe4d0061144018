import Foundation
import Glibc
import SandboxCore
import SystemPackage
import Testing

/// A recursive removal splits the top level's subdirectories between two threads (issue 16): the
/// guarantees of the sequential walk hold on both.
@Suite("Parallel removal")
struct ParallelRemovalTests {
    /// A tree under `tree` in the container: 6 folders of 40 files, two 1,200-level chains, a
    /// folder whose name is not UTF-8, links to the outside at the top and inside a folder, and
    /// two top-level files. Returns how many items it holds (the tree itself not counted).
    static func plant(_ tmp: TemporaryDirectory, under tree: String) throws -> Int {
        var items = 0
        for folder in 0..<6 {
            for file in 0..<40 { try tmp.makeFile("\(tree)/f\(folder)/file\(file)") }
            items += 41
        }
        for chain in ["chainA", "chainB"] {
            try tmp.makeDirectory("\(tree)/\(chain)")
            try DeepTreeTests.hostMakeChain(1_200, in: tmp.host("\(tree)/\(chain)"))
            items += 1 + 1_200 + 1
        }
        try RawNameTests.hostCreate(RawNameTests.invalidDirectory, in: tmp.host(tree), directory: true)
        items += 1
        try tmp.makeSymlink("\(tree)/outsideLink", to: tmp.outside + "/dir")
        try tmp.makeSymlink("\(tree)/f0/outsideLink", to: tmp.outside)
        try tmp.makeFile("\(tree)/top1")
        try tmp.makeFile("\(tree)/top2")
        return items + 1 + 1 + 2
    }

    @Test("removeItem(recursively:) removes the whole tree on two threads and counts every item")
    func removesWholeTree() throws {
        let tmp = try TemporaryDirectory()
        let items = try Self.plant(tmp, under: "tree")
        let before = tmp.outsideSnapshot()
        let root = try tmp.root(.openat2)
        #expect(try root.removeItem(at: ContainerPath("tree"), recursively: true) == items + 1)
        #expect(!TemporaryDirectory.hostExists(tmp.host("tree")))
        #expect(tmp.outsideSnapshot() == before)
    }

    @Test("removeContents(of:) empties the tree and keeps it, links unlinked, not followed", arguments: bothResolutions)
    func removesContents(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        let items = try Self.plant(tmp, under: "tree")
        let before = tmp.outsideSnapshot()
        let root = try tmp.root(resolution)
        #expect(try root.removeContents(of: ContainerPath("tree")) == items)
        #expect(try root.contentsOfDirectory(at: ContainerPath("tree")).isEmpty)
        #expect(tmp.outsideSnapshot() == before)
    }

    @Test("a failure in one subtree stops the removal with that error, and the rest is left consistent")
    func failureInOneSubtree() throws {
        let tmp = try TemporaryDirectory()
        _ = try Self.plant(tmp, under: "tree")
        try tmp.makeFile("tree/failsHere-\(getpid())/inner/file")
        let root = try tmp.root(.openat2)
        #if DEBUG
            let fault = FaultInjection.inject(.ioError, into: ["unlinkat"], onPathsContaining: "failsHere-\(getpid())")
            defer { fault.remove() }
            do {
                try root.removeItem(at: ContainerPath("tree"), recursively: true)
                Issue.record("the injected unlinkat failure was not reported")
            } catch {
                #expect(error.code == .io, "\(error)")
                #expect(error.message.contains("failsHere-\(getpid())"), "\(error.message)")
            }
            #expect(fault.fired >= 1)
            #expect(TemporaryDirectory.hostExists(tmp.host("tree/failsHere-\(getpid())")))
            fault.remove()
        #endif
        // Whatever was left is removed by the next call.
        #expect(try root.removeItem(at: ContainerPath("tree"), recursively: true) > 0)
        #expect(!TemporaryDirectory.hostExists(tmp.host("tree")))
    }
}
