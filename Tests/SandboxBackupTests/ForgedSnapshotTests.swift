import Foundation
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// A repository is data: a snapshot forged to write outside the container, or to plant a
/// set-user-ID file, is refused or defused, and the container is left as it was.
@Suite struct ForgedSnapshotTests {
    static func forge(_ nodes: [TreeNode], in repository: Repository, home: SandboxHome) throws -> Snapshot {
        var stored: Int64 = 0
        var known: Set<String> = []
        var index: [String: Int] = [:]
        let tree = try repository.storeSplit(
            RepositoryJSON.encode(nodes), stored: &stored, known: &known, index: &index)
        _ = try repository.storeRecord(IndexRecord(blobs: index), kind: .index)
        let record = SnapshotRecord(
            time: Date(), hostname: "forger", device: nil, home: home.location,
            apps: [
                AppSnapshot(
                    app: BackupFixture.app.rawValue, tree: tree, manifest: [], keychain: nil, files: nodes.count,
                    bytes: 0)
            ],
            parent: nil)
        let id = try repository.storeRecord(record, kind: .snapshot)
        return Snapshot(id: id, record: record)
    }

    static func node(_ path: String, _ kind: TreeNode.Kind, mode: UInt32 = 0o644, target: String? = nil) -> TreeNode {
        TreeNode(
            path: Data(path.utf8), kind: kind, mode: mode, uid: 0, gid: 0, size: 0,
            modified: Timestamp(seconds: 1, nanoseconds: 0), accessed: nil, extendedAttributes: nil,
            chunks: kind == .file ? [] : nil, target: target.map { Data($0.utf8) }, hardLinkTo: nil, source: nil,
            inode: 0, device: 0, changed: Timestamp(seconds: 1, nanoseconds: 0))
    }

    @Test(arguments: [
        "../escape.txt", "Documents/../../escape.txt", "/etc/escape.txt", "Documents//x", "Documents/./x",
    ])
    func aPathThatLeavesTheContainerIsRefusedAndNothingChanges(path: String) async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/keep.txt", [1])
            let repository = try fixture.repository()
            let snapshot = try Self.forge([Self.node(path, .file)], in: repository, home: fixture.home)
            let error = failure { () throws(SandboxError) in
                _ = try Restore.run(app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
            }
            #expect(error?.code == .repositoryDamaged)
            #expect(FileManager.default.fileExists(atPath: fixture.hostPath("Documents/keep.txt")))
            #expect(!FileManager.default.fileExists(atPath: fixture.scratch.appending("escape.txt")))
        }
    }

    @Test func aFileBehindASymlinkOutOfTheContainerIsRefused() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/keep.txt", [1])
            let outside = fixture.scratch.appending("outside")
            try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
            let repository = try fixture.repository()
            let snapshot = try Self.forge(
                [
                    Self.node("Documents", .directory, mode: 0o755),
                    Self.node("Documents/out", .symlink, target: outside),
                    Self.node("Documents/out/planted.txt", .file),
                ],
                in: repository, home: fixture.home)
            let error = failure { () throws(SandboxError) in
                _ = try Restore.run(app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
            }
            // Refused by the tree's check, before the kernel's refusal of the escape is reached.
            #expect(error?.code == .repositoryDamaged)
            #expect(try FileManager.default.contentsOfDirectory(atPath: outside).isEmpty)
            #expect(FileManager.default.fileExists(atPath: fixture.hostPath("Documents/keep.txt")))
        }
    }

    @Test func setUserIDBitsAreNotRestored() async throws {
        try await BackupFixture.with { fixture in
            let repository = try fixture.repository()
            let snapshot = try Self.forge(
                [Self.node("Documents", .directory, mode: 0o755), Self.node("Documents/tool", .file, mode: 0o6755)],
                in: repository, home: fixture.home)
            _ = try await Restore.run(app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
            let attributes = try FileManager.default.attributesOfItem(atPath: fixture.hostPath("Documents/tool"))
            #expect((attributes[.posixPermissions] as? Int) == 0o755)
        }
    }
}
