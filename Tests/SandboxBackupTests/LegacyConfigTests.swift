import Foundation
import SandboxCore
import SandboxStore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// An encrypted repository an older version wrote (config format 1, no authentication, a key file
/// sealing only the master key) opens with a warning, and the next backup authenticates it.
@Suite struct LegacyConfigTests {
    static let password = Array("right".utf8)

    /// Makes a format-1 encrypted repository at `path`, as the older version did.
    static func makeLegacy(at path: String) throws -> LocalRepositoryStorage {
        let storage = try LocalRepositoryStorage.creatingLayout(atHostPath: path)
        var generator = SystemRandomNumberGenerator()
        let master = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let derivation = PasswordKeyDerivation.standard()
        let key = try derivation.deriveKey(from: password)
        _ = try KeyFile.sealing(master, under: key, derivation: derivation).store(in: storage)
        let config = RepositoryConfig(
            version: 1, id: String(repeating: "ab", count: 32), chunking: .standard, encrypted: true)
        #expect(try storage.putIfAbsent(RepositoryJSON.encode(config), as: .config))
        return storage
    }

    @Test func anOlderEncryptedRepositoryOpensWithAWarningAndTheNextBackupAuthenticatesIt() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/a.txt", Array("first".utf8))
            let storage = try Self.makeLegacy(at: fixture.repositoryPath)
            let legacyKey = try ConfigTampering.keyFiles(fixture.repositoryPath)

            // Opened without writing: accepted, with a warning.
            let before = try ConfigTampering.inventory(fixture.repositoryPath)
            let old = try await Repository.open(storage, password: Self.password)
            #expect(old.configAuthentication == .legacy)
            let report = try await Checker.check(old, readingData: false)
            #expect(report.isHealthy, "\(report.problems)")
            #expect(report.warnings.contains { $0.contains("is not authenticated") })
            #expect(try ConfigTampering.inventory(fixture.repositoryPath) == before)
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: old)

            // The backup's open authenticates it.
            let upgraded = try fixture.repository(password: "right")
            #expect(upgraded.configAuthentication == .authenticated)
            #expect(upgraded.config.version == RepositoryConfig.currentVersion && upgraded.config.authentication != nil)
            let keys = try ConfigTampering.keyFiles(fixture.repositoryPath)
            #expect(keys.count == 1 && keys != legacyKey)
            let reopened = try await Repository.open(storage, password: Self.password)
            #expect(reopened.configAuthentication == .authenticated)
            #expect(reopened.config.id == old.config.id && reopened.config.chunking == old.config.chunking)
            let after = try await Checker.check(reopened, readingData: true)
            #expect(after.isHealthy && after.warnings.isEmpty, "\(after.problems) \(after.warnings)")
            #expect(try await reopened.snapshots().count == 1)
            try fixture.write("Documents/a.txt", Array("second".utf8))
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await reopened.snapshot(matching: nil), from: reopened,
                into: fixture.home)
            #expect(try String(contentsOfFile: fixture.hostPath("Documents/a.txt"), encoding: .utf8) == "first")
        }
    }

    /// After the upgrade, stripping the authentication does not make the repository look old
    /// again — also with the older key file put back (a copy kept from before, or an upgrade
    /// killed before it removed it).
    @Test func strippingAfterTheUpgradeIsDetectedEvenWithTheOldKeyFileBack() async throws {
        try await BackupFixture.with { fixture in
            let storage = try Self.makeLegacy(at: fixture.repositoryPath)
            let keys = fixture.repositoryPath + "/keys/"
            let legacyName = try ConfigTampering.keyFiles(fixture.repositoryPath)[0]
            let legacyBytes = try Data(contentsOf: URL(fileURLWithPath: keys + legacyName))
            let legacyConfig = try Data(contentsOf: URL(fileURLWithPath: fixture.repositoryPath + "/config"))
            _ = try fixture.repository(password: "right")
            try legacyBytes.write(to: URL(fileURLWithPath: keys + legacyName))
            try legacyConfig.write(to: URL(fileURLWithPath: fixture.repositoryPath + "/config"), options: .atomic)
            let before = try ConfigTampering.inventory(fixture.repositoryPath)
            for upgrading in [false, true] {
                let error = failure { () throws(SandboxError) in
                    _ = try Repository.open(storage, password: Self.password, upgrading: upgrading)
                }
                #expect(error?.code == .repositoryDamaged)
                #expect(
                    error?.message.contains("its authentication was removed") == true, "\(String(describing: error))")
            }
            #expect(try ConfigTampering.inventory(fixture.repositoryPath) == before)
        }
    }

    /// An upgrade killed after it rewrote the config (the key file still the older one) is
    /// finished by the next backup's open.
    @Test func anInterruptedUpgradeIsFinishedByTheNextOpen() async throws {
        try await BackupFixture.with { fixture in
            let storage = try Self.makeLegacy(at: fixture.repositoryPath)
            let legacyKey = try ConfigTampering.keyFiles(fixture.repositoryPath)
            let unlocked = try UnlockedKey.unlock(storage, password: Self.password)
            var config = try Repository.readConfig(storage)
            config.version = 2
            config.authentication = RepositoryCipher(master: unlocked.master).authentication(of: config)
            try storage.replace(RepositoryJSON.encode(config), as: .config)

            #expect(try await Repository.open(storage, password: Self.password).configAuthentication == .authenticated)
            #expect(try ConfigTampering.keyFiles(fixture.repositoryPath) == legacyKey)  // a plain open writes nothing
            _ = try fixture.repository(password: "right")
            let keys = try ConfigTampering.keyFiles(fixture.repositoryPath)
            #expect(keys.count == 1 && keys != legacyKey)
            #expect(try UnlockedKey.unlock(storage, password: Self.password).promisesAuthenticatedConfig)
        }
    }

    /// Every field is checked, with the field, its value and the legal range in the message.
    @Test(arguments: [
        ("version", "version is 0, outside the legal 1…4"),
        ("id", "id is 'xyz', not 64 lowercase hex digits"),
        ("authentication", "authentication is present, where an unencrypted repository has none"),
    ])
    func everyFieldIsChecked(field: String, message: String) async throws {
        try await BackupFixture.with { fixture in
            _ = try fixture.repository()
            try ConfigTampering.edit(fixture.repositoryPath) { config in
                switch field {
                case "version": config[field] = 0
                case "id": config[field] = "xyz"
                default: config[field] = String(repeating: "0", count: 64)
                }
            }
            let error = failure { () throws(SandboxError) in
                _ = try ConfigTampering.openForBackup(fixture.repositoryPath)
            }
            #expect(error?.code == .repositoryDamaged)
            #expect(error?.message.contains(message) == true, "\(String(describing: error))")
            #expect(error?.message.contains("Put back the 'config' from a copy") == true)
        }
    }

    @Test func aNewerVersionIsNotARepositoryThisProgramReads() async throws {
        try await BackupFixture.with { fixture in
            _ = try fixture.repository()
            try ConfigTampering.edit(fixture.repositoryPath) {
                $0["version"] = RepositoryConfig.readableVersions.upperBound + 1
            }
            let error = failure { () throws(SandboxError) in
                _ = try ConfigTampering.openForBackup(fixture.repositoryPath)
            }
            #expect(error?.code == .notARepository)
        }
    }

    @Test func chunkingLimitsFitWhatARestoreReads() {
        let sealedMaximum = ChunkingParameters.legalMaximumSizes.upperBound + 12 + 16  // nonce, tag
        #expect(sealedMaximum <= LocalRepositoryStorage.maximumObjectSize)
        #expect(ChunkingParameters.standard.violation == nil)
        let bad = ChunkingParameters.standard
        for (change, field) in [
            ({ (p: inout ChunkingParameters) in p.averageSize = 3 << 10 }, "averageSize is 3072"),
            ({ (p: inout ChunkingParameters) in p.minimumSize = 1 << 20 }, "minimumSize is 1048576"),
            ({ (p: inout ChunkingParameters) in p.minimumSize = -1 }, "minimumSize is -1"),
            ({ (p: inout ChunkingParameters) in p.maximumSize = 256 << 10 }, "maximumSize is 262144"),
            ({ (p: inout ChunkingParameters) in p.maximumSize = 64 << 20 }, "maximumSize is 67108864"),
        ] {
            var parameters = bad
            change(&parameters)
            #expect(
                parameters.violation?.contains("chunking." + field) == true,
                "\(String(describing: parameters.violation))")
        }
    }
}
