import Foundation
import Glibc
import Logging
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Synchronization
import Testing

/// A restore that fails rolls back — removes its staging directory, puts the keychain back — and
/// throws its own error. A rollback step that fails too is logged, naming the path and the error,
/// instead of being dropped.
@Suite struct RestoreRollbackLogTests {
    /// `chattr +i` / `-i` (`FS_IOC_SETFLAGS`): not even root may unlink an immutable file.
    static func setImmutable(_ path: String, _ immutable: Bool) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var flags: CLong = 0
        guard ioctl(fd, 0x8008_6601, &flags) == 0 else { return false }  // FS_IOC_GETFLAGS
        flags = immutable ? flags | 0x10 : flags & ~0x10  // FS_IMMUTABLE_FL
        return ioctl(fd, 0x4008_6602, &flags) == 0  // FS_IOC_SETFLAGS
    }

    @Test func aStageThatCannotBeRemovedIsLoggedWithItsPathAndError() async throws {
        try await BackupFixture.with { fixture in
            let repository = try RepositoryFailureTests.backedUp(fixture)
            // Documents/two.bin's blob missing: the restore fails after writing Documents/one.bin.
            #expect(unlink(try RepositoryFailureTests.blobPath(of: "Documents/two.bin", fixture, repository)) == 0)
            let data = fixture.home.location + "/Containers/Data"
            let planted = Mutex<String?>(nil)
            defer {
                if let file = planted.withLock({ $0 }) { _ = Self.setImmutable(file, false) }
            }
            let records = CapturedLog()
            do {
                _ = try await Restore.run(
                    app: BackupFixture.app, snapshot: try await repository.snapshot(matching: nil), from: repository,
                    into: fixture.home, logger: records.logger()
                ) { _ in
                    // At the first item staged, an immutable file in the stage: its removal fails.
                    planted.withLock { planted in
                        guard planted == nil,
                            let stage = try? FileManager.default.contentsOfDirectory(atPath: data)
                                .first(where: { $0.hasPrefix(".restoring-") })
                        else { return }
                        let file = data + "/" + stage + "/stuck"
                        let fd = creat(file, 0o600)
                        guard fd >= 0 else { return }
                        close(fd)
                        if Self.setImmutable(file, true) { planted = file }
                    }
                }
                Issue.record("the restore of a snapshot with a missing blob succeeded")
            } catch {
                #expect((error as? SandboxError)?.code == .repositoryDamaged, "\(error)")  // the restore's own error
            }
            let stuck = try #require(planted.withLock { $0 })
            let logged = records.records
            #expect(logged.count == 1, "\(logged)")
            #expect(logged.first?.level == .error)
            let stage = (stuck as NSString).deletingLastPathComponent
            #expect(logged.first?.metadata["path"]?.description == stage, "\(logged)")
            #expect(logged.first?.message.contains(stage) == true, "\(logged)")
            #expect(logged.first?.message.contains("stuck") == true, "\(logged)")  // the error names the file
        }
    }
}
