import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxStore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// A restore writes the files of a folder with a default protection class as every writer does
/// (issue 26, item 14): sealed with the class, never in the clear; while the class is locked it
/// is refused before anything changes.
@Suite struct ProtectedRestoreTests {
    static let documents = ContainerPath(constant: "Documents")

    /// Bytes no two files share, `count` of them.
    static func contents(_ count: Int, seed: UInt8) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ $0 >> 9) }
    }

    /// A complete `Documents` holding files sealed by the library and files the app wrote in the
    /// clear (as an app writing with POSIX calls does), small and large, and a plain file's second
    /// name; backed up. Returns the plaintext of each file by path.
    static func backUpProtectedDocuments(
        _ fixture: BackupFixture, _ protection: DataProtection
    ) throws -> (Snapshot, Repository, [String: [UInt8]]) {
        let root = fixture.container.root
        try protection.setDefaultProtection(.complete, forDirectoryAt: documents, in: root)
        var files: [String: [UInt8]] = [
            "Documents/sealed.txt": Array("sealed by the library\n".utf8),
            "Documents/sealed-large.bin": contents(2 << 20, seed: 1),
            "Documents/plain.txt": Array("the launch codes are 0000\n".utf8),
            "Documents/plain-large.bin": contents(3 << 20 + 12_345, seed: 2),
            "Documents/empty.txt": [],
            "Library/shared.txt": Array("a plain file with a second name in Documents\n".utf8),
        ]
        for name in ["Documents/sealed.txt", "Documents/sealed-large.bin"] {
            try protection.write(try #require(files[name]), to: try ContainerPath(name), in: root)
        }
        for name in ["Documents/plain.txt", "Documents/plain-large.bin", "Documents/empty.txt", "Library/shared.txt"] {
            try fixture.write(name, try #require(files[name]))  // in the clear, as the app wrote them
        }
        guard link(fixture.hostPath("Library/shared.txt"), fixture.hostPath("Documents/linked.txt")) == 0 else {
            throw TestFailure("link: \(String(cString: strerror(errno)))")
        }
        files["Documents/linked.txt"] = files["Library/shared.txt"]
        let repository = try fixture.repository()
        _ = try Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
        // Changed since, so that the restore is seen.
        try fixture.write("Documents/plain.txt", Array("changed".utf8))
        return (try repository.snapshot(matching: nil), repository, files)
    }

    @Test func filesOfAProtectedFolderAreRestoredSealed() async throws {
        try await BackupFixture.with { fixture in
            let protection = DataProtection(home: fixture.home)
            try protection.setPasscode(Array("2468".utf8), current: [])
            defer { try? protection.forgetKeysAtRestart() }  // cleanup of the keyring; the result stands
            let (snapshot, repository, files) = try Self.backUpProtectedDocuments(fixture, protection)

            _ = try await Restore.run(app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)

            let root = try fixture.home.container(for: BackupFixture.app).root  // the restored one
            #expect(try protection.defaultProtection(forDirectoryAt: Self.documents, in: root) == .complete)
            for (name, plaintext) in files.sorted(by: { $0.key < $1.key }) {
                let path = try ContainerPath(name)
                let restored = try protection.readContents(of: path, in: root, maximumSize: 16 << 20)
                #expect(restored.count == plaintext.count && restored == plaintext, "'\(name)' reads back wrong")
                guard name.hasPrefix("Documents/") else { continue }
                #expect(try protection.protectionClass(of: path, in: root) == .complete, "'\(name)' is not sealed")
                let raw = try Data(contentsOf: URL(fileURLWithPath: fixture.hostPath(name)))
                if !plaintext.isEmpty {
                    #expect(raw.range(of: Data(plaintext.prefix(4096))) == nil, "'\(name)' is on disk in the clear")
                }
            }
        }
    }

    @Test func whileLockedTheRestoreIsRefusedAndTheContainerKept() async throws {
        try await BackupFixture.with { fixture in
            let protection = DataProtection(home: fixture.home)
            try protection.setPasscode(Array("2468".utf8), current: [])
            defer { try? protection.forgetKeysAtRestart() }  // cleanup of the keyring; the result stands
            let (snapshot, repository, _) = try Self.backUpProtectedDocuments(fixture, protection)
            let before = try TreeDescription(fixture.container.homeDirectory)
            #expect(try protection.lock())

            let error = failure { () throws(SandboxError) in
                _ = try Restore.run(app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
            }
            #expect(error?.code.description == "protected-data-unavailable", "\(String(describing: error))")
            #expect(error?.message.contains("'Documents'") == true, "\(String(describing: error))")
            #expect(error?.message.contains("Unlock the device") == true, "\(String(describing: error))")
            #expect(try TreeDescription(fixture.container.homeDirectory) == before, "the old container changed")
            let names = try FileManager.default.contentsOfDirectory(atPath: fixture.home.location + "/Containers/Data")
            #expect(!names.contains { $0.hasPrefix(".restoring-") }, "\(names)")

            try protection.unlock(passcode: Array("2468".utf8))
            _ = try await Restore.run(app: BackupFixture.app, snapshot: snapshot, from: repository, into: fixture.home)
        }
    }
}
