import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxStore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// `.xcappdata` packages and protected files: an export writes plaintext Xcode can read and keeps
/// the classes; an import seals as a restore does; a locked class refuses both before anything
/// is published.
@Suite struct XcodeContainerProtectionTests {
    static let app = BackupFixture.app
    static let documents = ContainerPath(constant: "Documents")
    static let passcode = Array("2468".utf8)
    static let sealed = Array("sealed by the library\n".utf8)
    static let large = ProtectedRestoreTests.contents(3 << 20 + 4321, seed: 3)
    static let plain = Array("written in the clear by the app\n".utf8)

    /// A `Documents` of class complete holding files sealed by the library, small and large, and
    /// one the app wrote in the clear; a passcode is set (the device is unlocked).
    static func protectDocuments(_ fixture: BackupFixture) throws -> DataProtection {
        let protection = DataProtection(home: fixture.home)
        try protection.setPasscode(passcode, current: [])
        let root = fixture.container.root
        try protection.setDefaultProtection(.complete, forDirectoryAt: documents, in: root)
        try protection.write(sealed, to: ContainerPath("Documents/sealed.txt"), in: root)
        try protection.write(large, to: ContainerPath("Documents/large.bin"), in: root)
        try fixture.write("Documents/plain.txt", plain)
        return protection
    }

    static func contents(_ hostPath: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: hostPath)))
    }

    @Test func aProtectedFolderGoesOutInTheClearAndComesBackSealed() async throws {
        try await BackupFixture.with { fixture in
            let protection = try Self.protectDocuments(fixture)
            defer { try? protection.forgetKeysAtRestart() }  // cleanup of the keyring; the result stands
            let package = fixture.scratch.appending("Notes.xcappdata")
            let exported = try await XcodeContainer.export(app: Self.app, from: fixture.home, to: package)
            #expect(exported.notes.isEmpty, "\(exported.notes)")

            // What Xcode reads: the plaintext; the folder keeps its class.
            let documents = package + "/AppData/Documents"
            #expect(try Self.contents(documents + "/sealed.txt") == Self.sealed)
            #expect(try Self.contents(documents + "/large.bin") == Self.large)
            #expect(try Self.contents(documents + "/plain.txt") == Self.plain)
            let packageRoot = try ConfinedRoot(openingDirectoryAt: package + "/AppData")
            #expect(try protection.defaultProtection(forDirectoryAt: Self.documents, in: packageRoot) == .complete)
            // A file added in Xcode's copy.
            try Data("added in the package\n".utf8).write(to: URL(fileURLWithPath: documents + "/added.txt"))

            try fixture.write("Documents/plain.txt", Array("changed".utf8))
            _ = try await XcodeContainer.importContainer(app: Self.app, into: fixture.home, from: package)
            let root = try fixture.home.container(for: Self.app).root
            let expected: [String: [UInt8]] = [
                "sealed.txt": Self.sealed, "large.bin": Self.large, "plain.txt": Self.plain,
                "added.txt": Array("added in the package\n".utf8),
            ]
            for (name, plaintext) in expected.sorted(by: { $0.key < $1.key }) {
                let path = Self.documents.appendingTrusted(name)
                #expect(try protection.protectionClass(of: path, in: root) == .complete, "'\(name)' is not sealed")
                #expect(try protection.readContents(of: path, in: root, maximumSize: 16 << 20) == plaintext)
                let raw = try Data(Self.contents(fixture.hostPath("Documents/" + name)))
                #expect(raw.range(of: Data(plaintext.prefix(4096))) == nil, "'\(name)' is on disk in the clear")
            }
        }
    }

    @Test func whileLockedAnExportIsRefusedAndNothingIsPublished() async throws {
        try await BackupFixture.with { fixture in
            let protection = try Self.protectDocuments(fixture)
            defer { try? protection.forgetKeysAtRestart() }  // cleanup of the keyring; the result stands
            #expect(try protection.lock())
            let package = fixture.scratch.appending("Notes.xcappdata")
            let error = failure { () throws(SandboxError) in
                _ = try XcodeContainer.export(app: Self.app, from: fixture.home, to: package)
            }
            #expect(error?.code == .protectedDataUnavailable, "\(String(describing: error))")
            #expect(error?.message.contains("/Documents'") == true, "\(String(describing: error))")
            #expect(error?.message.contains("Unlock the device") == true, "\(String(describing: error))")
            let left = try FileManager.default.contentsOfDirectory(atPath: fixture.scratch.path)
            #expect(!left.contains { $0.contains("xcappdata") }, "\(left)")
        }
    }

    @Test func whileLockedAnImportIntoAProtectedFolderIsRefusedAndTheContainerKept() async throws {
        try await BackupFixture.with { fixture in
            let protection = try Self.protectDocuments(fixture)
            defer { try? protection.forgetKeysAtRestart() }  // cleanup of the keyring; the result stands
            let package = fixture.scratch.appending("Notes.xcappdata")
            _ = try await XcodeContainer.export(app: Self.app, from: fixture.home, to: package)
            let before = try TreeDescription(fixture.container.homeDirectory)
            #expect(try protection.lock())

            let error = failure { () throws(SandboxError) in
                _ = try XcodeContainer.importContainer(app: Self.app, into: fixture.home, from: package)
            }
            #expect(error?.code == .protectedDataUnavailable, "\(String(describing: error))")
            #expect(error?.message.contains("/Documents'") == true, "\(String(describing: error))")
            #expect(error?.message.contains("Unlock the device") == true, "\(String(describing: error))")
            #expect(try TreeDescription(fixture.container.homeDirectory) == before, "the old container changed")
            let names = try FileManager.default.contentsOfDirectory(atPath: fixture.home.location + "/Containers/Data")
            #expect(names == [Self.app.rawValue], "\(names)")

            try protection.unlock(passcode: Self.passcode)
            _ = try await XcodeContainer.importContainer(app: Self.app, into: fixture.home, from: package)
        }
    }

    @Test func aFileSealedOnAnotherDeviceIsRefused() async throws {
        try await BackupFixture.with { fixture in
            let protection = try Self.protectDocuments(fixture)
            defer { try? protection.forgetKeysAtRestart() }  // cleanup of the keyring; the result stands
            let package = fixture.scratch.appending("Notes.xcappdata")
            _ = try await XcodeContainer.export(app: Self.app, from: fixture.home, to: package)
            let (otherHome, other) = try fixture.otherDevice()
            try DataProtection(home: otherHome).write(
                Self.sealed, to: ContainerPath("Documents/foreign.txt"), in: other.root,
                protection: ProtectionClass.none)
            let foreign = try Self.contents(other.homeDirectory + "/Documents/foreign.txt")
            try Data(foreign).write(to: URL(fileURLWithPath: package + "/AppData/Library/foreign.txt"))
            let before = try TreeDescription(fixture.container.homeDirectory)

            let error = failure { () throws(SandboxError) in
                _ = try XcodeContainer.importContainer(app: Self.app, into: fixture.home, from: package)
            }
            #expect(error?.code == .invalidPackage, "\(String(describing: error))")
            #expect(error?.message.contains("Library/foreign.txt") == true, "\(String(describing: error))")
            #expect(error?.message.contains("another device") == true, "\(String(describing: error))")
            #expect(try TreeDescription(fixture.container.homeDirectory) == before, "the old container changed")
        }
    }
}
