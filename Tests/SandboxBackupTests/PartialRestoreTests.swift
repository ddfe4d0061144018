import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxStore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// `sandbox restore --include PATH` on real repositories: only the items given come back, each
/// swapped in at once; the rest of the live container is untouched; a missing item, a path with
/// `..` or a live folder that is a symbolic link changes nothing.
@Suite struct PartialRestoreTests {
    /// A snapshot of `Documents/a.txt`, `Documents/sub/…` and `Documents/keep.txt`, then the live
    /// container changed everywhere. Returns the snapshot's id and `Documents/sub` as backed up.
    static func changedSinceSnapshot(_ fixture: BackupFixture) async throws -> (String, TreeDescription) {
        try fixture.write("Documents/a.txt", Array("old a".utf8))
        try fixture.write("Documents/sub/b.bin", ChunkerTests.pseudoRandom(1 << 20, seed: 7))
        try fixture.write("Documents/sub/c/d.txt", Array("old d".utf8))
        try fixture.write("Documents/keep.txt", Array("old keep".utf8))
        let subtree = try TreeDescription(fixture.hostPath("Documents/sub"))
        let snapshot = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: try fixture.repository())
        try fixture.write("Documents/a.txt", Array("new a".utf8))
        try fixture.write("Documents/sub/b.bin", Array("new b".utf8))
        try fixture.write("Documents/sub/added.txt", Array("added".utf8))
        try fixture.write("Documents/keep.txt", Array("new keep".utf8))
        try fixture.write("Library/app-wrote.txt", Array("elsewhere".utf8))
        return (snapshot.snapshot, subtree)
    }

    @Test func onlyTheIncludedFileAndFolderComeBack() async throws {
        try await BackupFixture.with { fixture in
            let (id, subtree) = try await Self.changedSinceSnapshot(fixture)
            let restored = try await fixture.sandbox([
                "restore", "com.example.notes", fixture.repositoryPath, "--snapshot", String(id.prefix(8)),
                "--include", "Documents/a.txt", "--include", "Documents/sub", "--include", "Documents/sub/c",
            ])
            #expect(restored.status == 0, "\(restored.stderr)")
            #expect(try String(contentsOfFile: fixture.hostPath("Documents/a.txt"), encoding: .utf8) == "old a")
            #expect(try TreeDescription(fixture.hostPath("Documents/sub")) == subtree)
            // The rest of the container is as the app left it.
            #expect(try String(contentsOfFile: fixture.hostPath("Documents/keep.txt"), encoding: .utf8) == "new keep")
            #expect(
                try String(contentsOfFile: fixture.hostPath("Library/app-wrote.txt"), encoding: .utf8) == "elsewhere")
            // No staging folder is left behind.
            let names = try FileManager.default.contentsOfDirectory(atPath: fixture.hostPath("Documents"))
            #expect(!names.contains { $0.hasPrefix(Restore.itemStagePrefix) }, "\(names)")
            // A file of a folder the live container lost: its folder is made again.
            try FileManager.default.removeItem(atPath: fixture.hostPath("Documents/sub"))
            let repository = try fixture.repository()
            let report = try await Restore.run(
                app: BackupFixture.app, snapshot: try repository.snapshot(matching: id),
                including: ["Documents/sub/c/d.txt"], from: repository, into: fixture.home)
            #expect(report.files == 1 && report.bytes == 5)
            #expect(try String(contentsOfFile: fixture.hostPath("Documents/sub/c/d.txt"), encoding: .utf8) == "old d")
        }
    }

    @Test func aMissingItemChangesNothing() async throws {
        try await BackupFixture.with { fixture in
            let (id, _) = try await Self.changedSinceSnapshot(fixture)
            let before = try TreeDescription(fixture.container.homeDirectory)
            let refused = try await fixture.sandbox([
                "restore", "com.example.notes", fixture.repositoryPath, "--snapshot", id,
                "--include", "Documents/a.txt", "--include", "Documents/nothing-here",
            ])
            #expect(refused.status != 0)
            #expect(refused.stderr.contains("'Documents/nothing-here'"), "\(refused.stderr)")
            #expect(try TreeDescription(fixture.container.homeDirectory) == before)
        }
    }

    @Test func aLiveFolderThatIsALinkIsRefusedAndNothingChanges() async throws {
        try await BackupFixture.with { fixture in
            let (id, _) = try await Self.changedSinceSnapshot(fixture)
            // The app replaced its folder with a link to another of its folders.
            try FileManager.default.removeItem(atPath: fixture.hostPath("Documents/sub"))
            try fixture.write("Library/elsewhere/b.bin", Array("the link's target".utf8))
            #expect(symlink("../Library/elsewhere", fixture.hostPath("Documents/sub")) == 0)
            let before = try TreeDescription(fixture.container.homeDirectory)
            let repository = try fixture.repository()
            let snapshot = try await repository.snapshot(matching: id)
            for include in [["Documents/sub/b.bin"], ["Documents/a.txt", "Documents/sub/c/d.txt"]] {
                let error = failure { () throws(SandboxError) in
                    _ = try Restore.run(
                        app: BackupFixture.app, snapshot: snapshot, including: include, from: repository,
                        into: fixture.home)
                }
                #expect(error?.code == .notADirectory, "\(String(describing: error))")
                #expect(error?.message.contains("'Documents/sub'") == true, "\(String(describing: error))")
                #expect(try TreeDescription(fixture.container.homeDirectory) == before)
            }
            // Paths are checked as browsing checks them.
            for (include, code) in [
                ("Documents/../Library", SandboxError.Code.invalidPath), ("/etc/passwd", .escapesContainer),
                (".", .invalidPath),
            ] {
                let error = failure { () throws(SandboxError) in
                    _ = try Restore.run(
                        app: BackupFixture.app, snapshot: snapshot, including: [include], from: repository,
                        into: fixture.home)
                }
                #expect(error?.code == code, "\(include): \(String(describing: error))")
            }
            #expect(try TreeDescription(fixture.container.homeDirectory) == before)
            // The link itself, given as the item, is replaced by the folder (never followed).
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: snapshot, including: ["Documents/sub"], from: repository,
                into: fixture.home)
            #expect(
                try String(contentsOfFile: fixture.hostPath("Library/elsewhere/b.bin"), encoding: .utf8)
                    == "the link's target")
            #expect(
                try fixture.container.root.attributes(at: ContainerPath("Documents/sub"), followingSymlink: false)?.type
                    == .directory)
        }
    }

    @Test func filesOfAProtectedFolderAreRestoredSealed() async throws {
        try await BackupFixture.with { fixture in
            let protection = DataProtection(home: fixture.home)
            try protection.setPasscode(Array("2468".utf8), current: [])
            defer { try? protection.forgetKeysAtRestart() }  // cleanup of the keyring; the result stands
            let (snapshot, repository, files) = try ProtectedRestoreTests.backUpProtectedDocuments(fixture, protection)
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: snapshot, including: ["Documents/plain.txt"], from: repository,
                into: fixture.home)
            let root = fixture.container.root
            let path = ContainerPath(constant: "Documents/plain.txt")
            #expect(
                try protection.readContents(of: path, in: root, maximumSize: 1 << 20) == files["Documents/plain.txt"])
            #expect(try protection.protectionClass(of: path, in: root) == .complete)
            let raw = try Data(contentsOf: URL(fileURLWithPath: fixture.hostPath("Documents/plain.txt")))
            #expect(raw.range(of: Data("launch codes".utf8)) == nil, "restored in the clear")
        }
    }
}
