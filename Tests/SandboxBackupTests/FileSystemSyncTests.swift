import Foundation
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

/// A backup and a restore flush only the file system they wrote to (`syncfs(2)`), never every file
/// system of the machine (`sync(2)`, which waits on other disks and network mounts too). Seen from
/// outside with `strace` (installed by scripts/install-test-tools).
@Suite struct FileSystemSyncTests {
    static func traced(_ arguments: [String], _ fixture: BackupFixture) async throws -> String {
        let trace = fixture.scratch.appending("trace-\(UUID().uuidString)")
        let harness = try BuiltProgram("sandbox-backup-harness").path
        let output = try await BuiltProgram(path: "/usr/bin/strace").run(
            ["-f", "-qq", "-e", "trace=sync,syncfs", "-o", trace, harness] + arguments, outputIn: fixture.scratch.path)
        #expect(output.status == 0, "\(output.stderr)")
        return try String(contentsOfFile: trace, encoding: .utf8)
    }

    @Test func backupAndRestoreSyncOnlyTheirFileSystem() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/a.txt", Array("hello".utf8))
            let backup = try await Self.traced(
                ["backup", fixture.home.location, fixture.repositoryPath, BackupFixture.app.rawValue], fixture)
            #expect(!backup.contains("sync()"), "\(backup)")
            #expect(backup.contains("syncfs("), "\(backup)")
            let snapshot = try await fixture.repository().snapshots()[0].id
            let restore = try await Self.traced(
                ["restore", fixture.home.location, fixture.repositoryPath, BackupFixture.app.rawValue, snapshot],
                fixture)
            #expect(!restore.contains("sync()"), "\(restore)")
            #expect(restore.contains("syncfs("), "\(restore)")
        }
    }

    /// The flush opens the repository's directory through the descriptor it holds, not again by its
    /// host path: a repository whose directory was moved — and another directory put at its old
    /// path, as a hostile host user could — still flushes its own file system. (Reopening by host
    /// path failed here with `io`, "Cannot open … to flush", or flushed the impostor's.)
    @Test func aMovedRepositoryFlushesThroughItsDescriptor() async throws {
        try await BackupFixture.with { fixture in
            let storage = try LocalRepositoryStorage.creatingLayout(atHostPath: fixture.repositoryPath)
            let moved = fixture.scratch.appending("moved-repo")
            #expect(rename(fixture.repositoryPath, moved) == 0)
            try storage.synchronize()
            #expect(mkdir(fixture.repositoryPath, 0o000) == 0)  // unreadable: an open by path fails
            try storage.synchronize()
        }
    }
}
