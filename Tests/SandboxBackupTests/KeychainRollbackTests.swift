import Foundation
import Sandbox
import SandboxCore
import SandboxStore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// The two states a kill can leave a restore in around its commit point, made by hand: killed
/// after the keychain write but before the exchange (the old keychain comes back), and killed
/// after the exchange (the new keychain stays).
@Suite struct KeychainRollbackTests {
    static let app = KeychainOrderTests.app

    static func killedAround(exchange exchanged: Bool) async throws -> String? {
        try await BackupFixture.with { fixture in
            _ = try fixture.home.createContainer(for: app)
            let keychain = try Keychain(home: fixture.home, app: app)
            try keychain.set("old", key: "version")
            let stageName = "\(Restore.stagePrefix)killed-\(app.rawValue)"
            let stage = Restore.dataContainers.appendingTrusted(stageName)
            try fixture.home.root.createDirectory(at: stage)
            _ = try KeychainRollback.record(.app(app), stageNamed: stageName, in: fixture.home)
            try keychain.set("new", key: "version")
            if exchanged {
                try fixture.home.root.exchangeItems(
                    at: Restore.dataContainers.appendingTrusted(app.rawValue), with: stage)
            }
            try await Restore.recoverInterrupted(app: app, in: fixture.home)
            let left =
                try fixture.home.root.fileNames(at: Restore.dataContainers)
                + fixture.home.root.subdirectoryNames(at: Restore.dataContainers)
            #expect(left.allSatisfy { !$0.hasPrefix(Restore.stagePrefix) }, "\(left)")
            return try keychain.get("version")
        }
    }

    @Test func killedBeforeTheExchangeTheOldKeychainComesBack() async throws {
        #expect(try await Self.killedAround(exchange: false) == "old")
    }

    @Test func killedAfterTheExchangeTheNewKeychainStays() async throws {
        #expect(try await Self.killedAround(exchange: true) == "new")
    }
}
