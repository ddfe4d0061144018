import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// The container a restore replaced is removed on several threads, deepest folders first: all of
/// it, nothing through a symlink, and a folder the threads cannot empty is still removed.
@Suite struct ReplacedContainerRemovalTests {
    @Test func aRestoreLeavesNoReplacedContainerBehind() async throws {
        try await BackupFixture.with { fixture in
            for folder in 0..<12 {
                for depth in 0..<3 {
                    let path = "Documents/f\(folder)" + String(repeating: "/d", count: depth) + "/file\(depth).txt"
                    try fixture.write(path, Array("\(folder) \(depth)".utf8))
                }
            }
            let repository = try fixture.repository()
            let report = try Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            try fixture.write("Documents/f3/d/extra.txt", [1])
            _ = try Restore.run(
                app: BackupFixture.app, snapshot: try repository.snapshot(matching: report.snapshot),
                from: repository, into: fixture.home)
            let data = fixture.home.location + "/Containers/Data"
            let left = try FileManager.default.contentsOfDirectory(atPath: data)
            #expect(left == [BackupFixture.app.rawValue], "\(left)")
            #expect(!FileManager.default.fileExists(atPath: fixture.hostPath("Documents/f3/d/extra.txt")))
            #expect(FileManager.default.fileExists(atPath: fixture.hostPath("Documents/f11/d/d/file2.txt")))
        }
    }

    @Test func removalFollowsNoSymlinkAndEmptiesReadOnlyFolders() throws {
        try SandboxTesting.ScratchDirectory.with(prefix: "sandbox-removal") { scratch in
            let base = scratch.path
            let tree = base + "/tree"
            let outside = base + "/outside"
            for folder in 0..<10 {
                try FileManager.default.createDirectory(
                    atPath: tree + "/a\(folder)/b/c", withIntermediateDirectories: true)
                for level in ["", "/b", "/b/c"] {
                    try Data("x".utf8).write(to: URL(fileURLWithPath: tree + "/a\(folder)\(level)/file"))
                }
            }
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            try Data("keep".utf8).write(to: URL(fileURLWithPath: outside + "/keep"))
            try FileManager.default.createSymbolicLink(atPath: tree + "/a0/b/link", withDestinationPath: outside)
            #expect(chmod(tree + "/a4/b", 0o500) == 0)  // read-only: its entries cannot be unlinked as they are
            let root = try ConfinedRoot(openingDirectoryAt: base)
            try ReplacedContainerRemoval.remove(ContainerPath("tree"), in: root)
            #expect(!FileManager.default.fileExists(atPath: tree))
            #expect(FileManager.default.fileExists(atPath: outside + "/keep"))
        }
    }
}
