import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// Imports of encrypted iOS backups (issue 29, part 5): the backup Fixtures/ios-encrypted-backup.py
/// makes as iOS does (its app domain beside a hostile one) taken into a live container with its
/// password, through the same checks as an unencrypted folder; refused, the container untouched,
/// without a password, with a wrong one, or with damaged data.
@Suite("Importing encrypted iOS backups")
struct IOSBackupEncryptedImportTests {
    static let app = BackupFixture.app
    static let password = Array(IOSBackupEncryptedTests.password.utf8)

    /// The regular files under `folder`, by path relative to it.
    static func files(under folder: String) -> Set<String> {
        var found: Set<String> = []
        let enumerator = FileManager.default.enumerator(atPath: folder)
        while let relative = enumerator?.nextObject() as? String {
            var info = stat()
            if lstat(folder + "/" + relative, &info) == 0, info.st_mode & S_IFMT == S_IFREG { found.insert(relative) }
        }
        return found
    }

    @Test func theAppsDomainIsImportedByteForByte() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/old.txt", Array("old".utf8))
            let backup = try await IOSBackupEncryptedTests.fixture(in: fixture.scratch)
            let report = try await IOSBackup.importApp(
                Self.app, into: fixture.home, from: backup.folder, password: Self.password)
            #expect(report.domains == [IOSBackupEncryptedTests.appDomain])
            let ours = backup.index.filter { $0.domain == IOSBackupEncryptedTests.appDomain }
            #expect(ours.count == 5 && backup.index.count > ours.count, "the fixture holds another domain too")
            let home = fixture.container.homeDirectory
            #expect(Self.files(under: home) == Set(ours.map(\.relativePath)), "exactly the domain's files")
            for entry in ours {
                let imported = Array(try Data(contentsOf: URL(fileURLWithPath: home + "/" + entry.relativePath)))
                #expect(imported == (try backup.clear(entry.fileID)), "\(entry.relativePath)")
            }
        }
    }

    @Test func withoutItsPasswordOrWithAWrongOneNothingChanges() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/old.txt", Array("old".utf8))
            let before = try TreeDescription(fixture.container.homeDirectory)
            let backup = try await IOSBackupEncryptedTests.fixture(in: fixture.scratch)
            let none = await #expect(throws: SandboxError.self) {
                _ = try await IOSBackup.importApp(Self.app, into: fixture.home, from: backup.folder)
            }
            #expect(none?.code == .encryptedIOSBackup)
            let wrong = await #expect(throws: SandboxError.self) {
                _ = try await IOSBackup.importApp(
                    Self.app, into: fixture.home, from: backup.folder, password: Array("wrong".utf8))
            }
            #expect(wrong?.code == .wrongPassword)
            #expect(wrong?.message.contains(backup.folder) == true, "\(String(describing: wrong))")
            #expect(try TreeDescription(fixture.container.homeDirectory) == before)
        }
    }

    /// A row without an `EncryptionKey`: an empty file when its size is 0 (iOS stores no data for
    /// it), `ios-backup-damaged` otherwise.
    @Test func aRowWithoutAKeyIsAnEmptyFileOnlyAtSizeZero() async throws {
        try await BackupFixture.with { fixture in
            let backup = try await IOSBackupEncryptedTests.fixture(in: fixture.scratch)
            let source = try IOSBackupEncryptedSource(opening: backup.folder, password: Self.password)
            let output = fixture.scratch.appending("out")
            let fd = open(output, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
            try #require(fd >= 0)
            defer { close(fd) }
            let fileID = String(repeating: "ab", count: 20)
            try source.copyFile(fileID, size: 0, encryptionKey: nil, to: fd, shown: "empty")
            #expect(try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int == 0)
            let error = #expect(throws: SandboxError.self) {
                try source.copyFile(fileID, size: 5, encryptionKey: nil, to: fd, shown: "five")
            }
            #expect(error?.code == .iosBackupDamaged && error?.message.contains("EncryptionKey") == true)
        }
    }

    /// `sandbox import APP --ios-backup DIR --password-file F`: the password file's first line.
    @Test func theCommandReadsThePasswordFile() async throws {
        try await BackupFixture.with { fixture in
            let backup = try await IOSBackupEncryptedTests.fixture(in: fixture.scratch)
            let wrong = fixture.scratch.appending("wrong-password")
            try Data("wrong\n".utf8).write(to: URL(fileURLWithPath: wrong))
            let refused = try await fixture.sandbox([
                "import", Self.app.rawValue, "--ios-backup", backup.folder, "--password-file", wrong,
            ])
            #expect(refused.status != 0 && refused.stderr.contains("wrong-password"), "\(refused.stderr)")
            let right = fixture.scratch.appending("password")
            try Data((IOSBackupEncryptedTests.password + "\n").utf8).write(to: URL(fileURLWithPath: right))
            let output = try await fixture.sandbox([
                "import", Self.app.rawValue, "--ios-backup", backup.folder, "--password-file", right,
            ])
            #expect(output.status == 0, "\(output.stderr)")
            let notes = try backup.entry("Documents/notes.txt")
            #expect(
                Array(try Data(contentsOf: URL(fileURLWithPath: fixture.hostPath("Documents/notes.txt"))))
                    == (try backup.clear(notes.fileID)))
        }
    }

    /// A file of the app's domain cut short (no longer whole AES blocks) or emptied:
    /// `ios-backup-damaged`; missing: `invalid-ios-backup` as in an unencrypted folder. The
    /// container as it was.
    @Test(arguments: [
        ("cut", SandboxError.Code.iosBackupDamaged), ("emptied", .iosBackupDamaged), ("missing", .invalidIOSBackup),
    ])
    func aDamagedFileIsRefused(_ damage: String, _ code: SandboxError.Code) async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/old.txt", Array("old".utf8))
            let before = try TreeDescription(fixture.container.homeDirectory)
            let backup = try await IOSBackupEncryptedTests.fixture(in: fixture.scratch)
            let notes = try backup.entry("Documents/notes.txt")
            let path = backup.folder + "/\(notes.fileID.prefix(2))/\(notes.fileID)"
            switch damage {
            case "cut": #expect(truncate(path, 15) == 0)
            case "emptied": #expect(truncate(path, 0) == 0)
            default: #expect(unlink(path) == 0)
            }
            let error = await #expect(throws: SandboxError.self) {
                _ = try await IOSBackup.importApp(
                    Self.app, into: fixture.home, from: backup.folder, password: Self.password)
            }
            #expect(error?.code == code, "\(damage): \(String(describing: error))")
            #expect(error?.message.contains("Documents/notes.txt") == true, "\(damage): names the item")
            #expect(try TreeDescription(fixture.container.homeDirectory) == before)
        }
    }
}
