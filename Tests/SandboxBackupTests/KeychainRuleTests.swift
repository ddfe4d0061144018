import Foundation
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxStore
import SandboxTesting
import Testing

@Suite struct KeychainRuleTests {
    static func fillKeychain(_ fixture: BackupFixture) throws {
        let keychain = try Keychain(home: fixture.home, app: BackupFixture.app)
        try keychain.set("portable-secret", key: "movable")
        try keychain.accessibility(.whenUnlockedThisDeviceOnly).set("bound-secret", key: "bound")
        try Keychain(home: fixture.home, app: BackupFixture.app, service: "com.example.api").set("token", key: "api")
    }

    static func keys(_ home: SandboxHome, service: String? = nil) throws -> [String: String] {
        let keychain = try Keychain(home: home, app: BackupFixture.app, service: service)
        var result: [String: String] = [:]
        for key in try keychain.allKeys() { result[key] = try keychain.get(key) }
        return result
    }

    @Test(arguments: [nil, "correct horse"])
    func onTheSameDeviceEveryItemComesBack(password: String?) async throws {
        try await BackupFixture.with { fixture in
            try Self.fillKeychain(fixture)
            let repository = try fixture.repository(password: password)
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            try Keychain(home: fixture.home, app: BackupFixture.app).removeAll()
            let report = try await Restore.run(
                app: BackupFixture.app, snapshot: try await repository.snapshot(matching: nil), from: repository,
                into: fixture.home)
            #expect(report.keychainItems == 3)
            #expect(try Self.keys(fixture.home) == ["movable": "portable-secret", "bound": "bound-secret"])
            #expect(try Self.keys(fixture.home, service: "com.example.api") == ["api": "token"])
        }
    }

    @Test func onAnotherDeviceWithoutAPasswordTheKeychainStaysBehindAndTheRestoreSaysWhy() async throws {
        try await BackupFixture.with { fixture in
            try Self.fillKeychain(fixture)
            try fixture.write("Documents/a.txt", [1])
            let repository = try fixture.repository()
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            let (other, _) = try fixture.otherDevice()
            let report = try await Restore.run(
                app: BackupFixture.app, snapshot: try await repository.snapshot(matching: nil), from: repository,
                into: other)
            #expect(report.keychainItems == nil)
            #expect(
                report.notes.contains {
                    $0.contains("keychain") && $0.contains("another device") && $0.contains("encrypted")
                })
            #expect(try Self.keys(other).isEmpty)
            #expect(
                FileManager.default.fileExists(
                    atPath: other.location + "/Containers/Data/com.example.notes/Documents/a.txt"))
        }
    }

    @Test func onAnotherDeviceWithAPasswordOnlyItemsThatMayMoveComeBack() async throws {
        try await BackupFixture.with { fixture in
            try Self.fillKeychain(fixture)
            let repository = try fixture.repository(password: "pw")
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            let (other, _) = try fixture.otherDevice()
            let report = try await Restore.run(
                app: BackupFixture.app, snapshot: try await repository.snapshot(matching: nil), from: repository,
                into: other)
            #expect(report.keychainItems == 2)
            #expect(report.notes.contains { $0.contains("ThisDeviceOnly") })
            #expect(try Self.keys(other) == ["movable": "portable-secret"])
            #expect(try Self.keys(other, service: "com.example.api") == ["api": "token"])
        }
    }
}
