import Foundation
import SandboxCore
import Synchronization
import Testing

@testable import SandboxBackup

/// Whether something happened yet, for a hook that acts once.
final class Once: Sendable {
    private let done = Mutex(false)

    /// `true` the first time, `false` after.
    func first() -> Bool {
        done.withLock { done in
            defer { done = true }
            return !done
        }
    }
}

/// Backups of several devices share one repository and write its `config` without a lock: a
/// format raise and the repository's creation must hold when two processes make them at once.
@Suite struct ConfigRaceTests {
    /// One process reads format 2 and raises to 3 (a group's part); another raises to 4 (packs)
    /// between that read and that write. The later write must not take the format back below 4.
    @Test(arguments: [nil, "pw"] as [String?])
    func aRaiseRacingAHigherOneLeavesTheHigherFormat(password: String?) async throws {
        try await BackupFixture.with { fixture in
            let repository = try fixture.repository(password: password)
            var config = try Repository.readConfig(repository.storage)
            config.version = 2
            config.authentication = password == nil ? nil : repository.cipher.authentication(of: config)
            try repository.storage.replace(RepositoryJSON.encode(config), as: .config)
            let once = Once()
            let base = try LocalRepositoryStorage(openingDirectoryAt: fixture.repositoryPath)
            let storage = ReadHookStorage(base) {
            } beforeWrite: { name in
                guard name == .config, once.first() else { return }
                do {
                    try fixture.repository(password: password).requireFormat(RepositoryConfig.packsVersion)
                } catch {
                    Issue.record("the other device's raise failed: \(error)")
                }
            }
            let racing = try Repository.open(storage, password: password.map { Array($0.utf8) })
            try racing.requireFormat(RepositoryConfig.partsVersion)
            #expect(!once.first(), "the other raise ran")
            let after = try fixture.repository(password: password)
            #expect(after.config.version == RepositoryConfig.packsVersion)
            #expect(after.configAuthentication == (password == nil ? .none : .authenticated))
        }
    }

    /// Two devices back up into a new encrypted repository at once: the one whose config lost
    /// removes its key file (a master key the config does not use), and both open the repository.
    @Test func theLoserOfACreationRaceLeavesNoKeyFile() async throws {
        try await BackupFixture.with { fixture in
            let password = Array("pw".utf8)
            let once = Once()
            let base = try LocalRepositoryStorage.creatingLayout(atHostPath: fixture.repositoryPath)
            let storage = ReadHookStorage(base) {
            } beforeWrite: { name in
                guard name == .config, once.first() else { return }
                do {
                    _ = try fixture.repository(password: "pw")  // the other device creates it first
                } catch {
                    Issue.record("the other device's creation failed: \(error)")
                }
            }
            let loser = try Repository.openOrCreate(storage, password: password)
            #expect(loser.configAuthentication == .authenticated)
            #expect(try storage.list(.key).count == 1)
            let winner = try fixture.repository(password: "pw")
            #expect(winner.config.id == loser.config.id)
        }
    }
}
