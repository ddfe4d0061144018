import Foundation
import SandboxCore
import Testing

@Suite("Atomic exchange, streamed reads, removing read-only trees")
struct ExchangeAndStreamTests {
    @Test(
        "exchangeItems swaps two directories in one step; a missing one is not-found",
        arguments: ConfinedRoot.Resolution.allCases)
    func exchange(resolution: ConfinedRoot.Resolution) throws {
        let temporary = try TemporaryDirectory()
        let root = try temporary.root(resolution)
        try temporary.makeFile("a/old", "old")
        try temporary.makeFile("b/new", "new")
        try root.exchangeItems(at: ContainerPath("a"), with: ContainerPath("b"))
        #expect(try root.readContents(of: ContainerPath("a/new")) == Array("new".utf8))
        #expect(try root.readContents(of: ContainerPath("b/old")) == Array("old".utf8))
        let missing = #expect(throws: SandboxError.self) {
            try root.exchangeItems(at: ContainerPath("a"), with: ContainerPath("c"))
        }
        #expect(missing?.code == .notFound)
        let inside = #expect(throws: SandboxError.self) {
            try root.exchangeItems(at: ContainerPath("a"), with: ContainerPath("a/new"))
        }
        #expect(inside?.code == .invalidArgument)
        let escape = #expect(throws: SandboxError.self) {
            try root.exchangeItems(at: ContainerPath("a"), with: ContainerPath("../outside"))
        }
        #expect(escape?.code == .escapesContainer)
        #expect(FileManager.default.fileExists(atPath: temporary.outside))
    }

    @Test("forEachChunk streams the whole file in chunks of the size asked")
    func chunks() throws {
        let temporary = try TemporaryDirectory()
        let root = try temporary.root(.automatic)
        let bytes = (0..<10_000).map { UInt8(truncatingIfNeeded: $0) }
        try temporary.makeFile("f", bytes: bytes)
        var read: [UInt8] = []
        var sizes: [Int] = []
        let total = try root.forEachChunk(of: ContainerPath("f"), chunkSize: 4096) { chunk in
            read += chunk
            sizes.append(chunk.count)
        }
        #expect(total == 10_000)
        #expect(read == bytes)
        #expect(sizes == [4096, 4096, 1808])
        let directory = #expect(throws: SandboxError.self) { try root.forEachChunk(of: .root) { _ in } }
        #expect(directory?.code == .isADirectory)
    }

    @Test("a recursive removal empties read-only directories too")
    func readOnlyTree() throws {
        let temporary = try TemporaryDirectory()
        let root = try temporary.root(.automatic)
        try temporary.makeFile("sealed/inner/file")
        for path in ["sealed/inner/file", "sealed/inner", "sealed"] {
            try FileManager.default.setAttributes(
                [.posixPermissions: path.hasSuffix("file") ? 0o444 : 0o555], ofItemAtPath: temporary.host(path))
        }
        #expect(try root.removeItem(at: ContainerPath("sealed"), recursively: true) == 3)
        #expect(!FileManager.default.fileExists(atPath: temporary.host("sealed")))
    }
}
