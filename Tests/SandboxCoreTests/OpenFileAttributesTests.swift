import Foundation
import SandboxCore
import Testing

/// `OpenFile.attributes()` describes the file that was opened, whatever became of its name.
@Suite struct OpenFileAttributesTests {
    @Test(arguments: bothResolutions)
    func describesTheOpenedFileNotTheName(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("a.txt", "first\n")
        let root = try tmp.root(resolution)
        let file = try root.openFile(forReadingAt: cpath("a.txt"))
        defer { try? file.close() }
        let before = try #require(try root.attributes(at: cpath("a.txt")))
        // The name now holds another file: the handle still describes the one it opened.
        try root.writeContents(Array("a longer second version\n".utf8), to: cpath("a.txt"))
        let opened = try file.attributes()
        #expect(opened.inode == before.inode && opened.size == 6 && opened.type == .regular)
        #expect(try root.attributes(at: cpath("a.txt"))?.inode != before.inode)
        try file.close()
        #expect(throws: SandboxError.self) { try file.attributes() }
    }
}
