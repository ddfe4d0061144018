import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxStore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// A hostile snapshot (issue 26, item 3) cannot give a restored container a folder the system
/// relies on that is a link (`Documents -> Library`), nor make the restore write through a
/// symlink it restored earlier: inside the container, into another app's, or out of the home.
@Suite struct ContainerLinkRestoreTests {
    static let other = BackupFixture.identifier("com.example.other")

    /// Whether `hostPath` is a directory itself (not a link to one).
    static func isRealDirectory(_ hostPath: String) -> Bool {
        var info = stat()
        return lstat(hostPath, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
    }

    /// The names in `Containers/Data` of the home: containers, and any staging directory left.
    static func dataContainerNames(_ fixture: BackupFixture) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: fixture.home.location + "/Containers/Data").sorted()
    }

    /// The snapshot's folders that `path` needs first, as folders.
    static func parents(of path: ContainerPath) -> [TreeNode] {
        var nodes: [TreeNode] = []
        var parent = path.parent
        while !parent.isRoot {
            nodes.insert(ForgedSnapshotTests.node(parent.description, .directory, mode: 0o755), at: 0)
            parent = parent.parent
        }
        return nodes
    }

    @Test(arguments: RestorePlan.containerDirectories.map(\.description))
    func aContainerFolderForgedAsALinkIsRestoredAsAFolder(path: String) async throws {
        try await BackupFixture.with { fixture in
            let linkPath = try ContainerPath(path)
            let target = path == "Library" ? "Documents" : "Library"
            let nodes =
                Self.parents(of: linkPath) + [
                    ForgedSnapshotTests.node(path, .symlink, target: target),
                    ForgedSnapshotTests.node("kept.txt", .file),
                ]
            let repository = try fixture.repository()
            let snapshot = try ForgedSnapshotTests.forge(nodes, in: repository, home: fixture.home)
            let report = try await Restore.run(
                app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
            for directory in RestorePlan.containerDirectories {
                #expect(
                    Self.isRealDirectory(fixture.hostPath(directory.description)),
                    "'\(directory)' is not a folder after restoring a snapshot with '\(path)' -> \(target)")
            }
            #expect(FileManager.default.fileExists(atPath: fixture.hostPath("kept.txt")), "the rest is restored")
            if !RestorePlan.isSkipped(linkPath) {
                #expect(report.notes.contains { $0.contains("'\(path)'") && $0.contains("symlink") }, "\(report.notes)")
            }
        }
    }

    /// The app plants the link in its own container; a real backup records it; the restore makes
    /// a real `Documents` and writes nothing through the link (before, it made `Library/Inbox`).
    @Test func aLinkPlantedByTheAppAndBackedUpIsNotRestored() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Library/notes.txt", Array("mine".utf8))
            try FileManager.default.removeItem(atPath: fixture.hostPath("Documents"))
            try FileManager.default.createSymbolicLink(
                atPath: fixture.hostPath("Documents"), withDestinationPath: "Library")
            let repository = try fixture.repository()
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            let snapshot = try await repository.snapshot(matching: nil)
            let report = try await Restore.run(
                app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
            #expect(Self.isRealDirectory(fixture.hostPath("Documents")))
            #expect(Self.isRealDirectory(fixture.hostPath("Documents/Inbox")))
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: fixture.hostPath("Library")).sorted() == [
                    "Application Support", "Caches", "Preferences", "notes.txt",
                ])
            #expect(try String(contentsOfFile: fixture.hostPath("Library/notes.txt"), encoding: .utf8) == "mine")
            #expect(report.notes.contains { $0.contains("'Documents'") }, "\(report.notes)")
        }
    }

    /// `a -> somewhere`, then `a/x`: refused before anything is written, wherever the link leads —
    /// out of the home, into another app's container, or to a place inside the container.
    @Test(arguments: [
        ("a", "OUTSIDE"), ("a", "../com.example.other"), ("a", "../../../outside"), ("a", "Library"),
        ("Documents", "Library"), ("Documents", "OUTSIDE"),
    ])
    func noItemIsWrittenThroughALinkTheSnapshotHolds(link: String, target: String) async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/keep.txt", [1])
            try fixture.write("Library/keep.txt", [2])
            let other = try fixture.home.createContainer(for: Self.other)
            try other.root.writeContents([3], to: ContainerPath(constant: "Documents/theirs.txt"))
            let outside = fixture.scratch.appending("outside")
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            let before = try TreeDescription(fixture.container.homeDirectory)
            let otherBefore = try TreeDescription(other.homeDirectory)
            let names = try Self.dataContainerNames(fixture)
            let repository = try fixture.repository()
            let snapshot = try ForgedSnapshotTests.forge(
                [
                    ForgedSnapshotTests.node("Library", .directory, mode: 0o755),
                    ForgedSnapshotTests.node(link, .symlink, target: target == "OUTSIDE" ? outside : target),
                    ForgedSnapshotTests.node("\(link)/planted.txt", .file),
                    ForgedSnapshotTests.node("\(link)/folder", .directory, mode: 0o755),
                ],
                in: repository, home: fixture.home)
            let error = failure { () throws(SandboxError) in
                _ = try Restore.run(app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
            }
            #expect(error?.code == .repositoryDamaged, "\(String(describing: error))")
            #expect(error?.message.contains("'\(link)/planted.txt'") == true, "\(String(describing: error))")
            #expect(try TreeDescription(fixture.container.homeDirectory) == before, "the old container changed")
            #expect(try TreeDescription(other.homeDirectory) == otherBefore, "the other app's container changed")
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
            #expect(!FileManager.default.fileExists(atPath: fixture.home.location + "/outside"))
            #expect(try Self.dataContainerNames(fixture) == names, "a staging directory was left")
        }
    }

    /// The kernel refuses too: the staging root refuses every symlink met on the way, so the
    /// writer alone, given a plan's check bypassed, still cannot write through a link it made.
    @Test func theStagingRootRefusesALinkOnTheWay() async throws {
        try await BackupFixture.with { fixture in
            let outside = fixture.scratch.appending("outside")
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            let stage = fixture.scratch.appending("stage")
            try FileManager.default.createDirectory(atPath: stage, withIntermediateDirectories: true)
            let root = try ConfinedRoot(openingDirectoryAt: stage).openSubroot(at: .root, refusingSymlinks: true)
            let repository = try fixture.repository()
            let blobs = BlobPrefetcher(ids: [], repository: repository)
            defer { blobs.stop() }
            let files = FileWritePool()
            defer { files.stop() }
            var writer = TreeWriter(
                root: root, blobs: blobs, files: files, dataProtection: DataProtection(home: fixture.home))
            _ = try writer.write(
                ForgedSnapshotTests.node("a", .symlink, target: "."), at: ContainerPath(constant: "a"))
            for node in [
                ForgedSnapshotTests.node("a/x", .file), ForgedSnapshotTests.node("a/d", .directory, mode: 0o755),
            ] {
                let error = failure { () throws(SandboxError) in
                    _ = try writer.write(node, at: try ContainerPath(node.displayPath))
                    try files.drain()
                }
                // The file's folder is resolved through the link: ELOOP. A folder's `mkdirat` finds
                // `a` taken, then the check that it is a folder refuses the link, one way or the other.
                let refused: [SandboxError.Code] = node.kind == .file ? [.symlinkLoop] : [.symlinkLoop, .notADirectory]
                #expect(error.map { refused.contains($0.code) } == true, "\(String(describing: error))")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: stage) == ["a"])
        }
    }
}
