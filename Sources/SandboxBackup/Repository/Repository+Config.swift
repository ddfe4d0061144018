import SandboxCore

/// How a repository's `config` is vouched for.
public enum ConfigAuthentication: Sendable, Hashable {
    /// Unencrypted: there is no key to authenticate with; every field is still checked.
    case none
    /// Encrypted, and its fields match their HMAC-SHA256 under the master key.
    case authenticated
    /// Encrypted, written by a version before config format 2, with no authentication and a key
    /// file that promises none: accepted (every field checked) with a warning from ``Checker``, and
    /// authenticated by the next backup. Refusing it would lock people out of their backups; a
    /// config whose authentication someone stripped is not taken for one, because the upgrade
    /// replaces the key file with one that promises it.
    case legacy
}

extension Repository {
    /// The repository's `config`, read and checked field by field.
    ///
    /// - Throws: as ``open(_:password:)`` for the config.
    static func readConfig(_ storage: any RepositoryStorage) throws(SandboxError) -> RepositoryConfig {
        let bytes: [UInt8]
        do {
            bytes = try storage.get(.config)
        } catch  where error.code == .notFound {
            throw SandboxError(
                .notARepository,
                "'\(storage.location)' is not a backup repository (it has no 'config'). Give the directory a backup wrote to, or back up to this one to make it.",
                path: storage.location)
        }
        guard bytes.count <= RepositoryConfig.maximumSize else {
            throw RepositoryConfig.unusable(
                storage.location,
                "it is \(bytes.count) bytes, more than the \(RepositoryConfig.maximumSize) a config has")
        }
        let config: RepositoryConfig
        do {
            config = try RepositoryJSON.decode(RepositoryConfig.self, from: bytes, name: "config")
        } catch {
            throw SandboxError(
                .notARepository, "The repository's 'config' in '\(storage.location)' is damaged: \(error.detail).",
                path: storage.location)
        }
        try config.validate(in: storage.location)
        return config
    }

    /// Checks an encrypted `config` against `cipher`'s key.
    ///
    /// - Parameter keyPromise: whether the password's key file promises an authenticated config.
    /// - Returns: ``ConfigAuthentication/authenticated`` or ``ConfigAuthentication/legacy``.
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` when the authentication does not
    ///   match the fields, or is missing where the key file promises it.
    static func verify(
        _ config: RepositoryConfig, cipher: RepositoryCipher, keyPromise: Bool, location: String
    )
        throws(SandboxError) -> ConfigAuthentication
    {
        if let stored = config.authentication {
            guard stored == cipher.authentication(of: config) else {
                throw RepositoryConfig.unusable(
                    location,
                    "its fields (version \(config.version), id \(config.id.prefix(8))…, chunking \(config.chunking.minimumSize)/\(config.chunking.averageSize)/\(config.chunking.maximumSize)) do not match its authentication, so someone without the password changed them"
                )
            }
            return .authenticated
        }
        guard !keyPromise else {
            throw RepositoryConfig.unusable(
                location,
                "its authentication was removed (it says version \(config.version)), though the repository's key file says it has one, so someone without the password changed it"
            )
        }
        return .legacy
    }

    /// Authenticates a legacy encrypted repository: rewrites `config` as format 2 with its
    /// authentication, stores a key file that promises it, then removes the password's older key
    /// files. Each step is safe to interrupt: a config with a valid authentication is accepted
    /// beside an older key file, and the next backup finishes the upgrade.
    ///
    /// - Returns: the config as it now is.
    /// - Throws: the storage's errors.
    static func upgrade(
        _ config: RepositoryConfig, cipher: RepositoryCipher, unlocked: UnlockedKey, in storage: any RepositoryStorage
    ) throws(SandboxError) -> RepositoryConfig {
        var upgraded = config
        if config.authentication == nil {
            upgraded.version = max(config.version, RepositoryConfig.currentVersion)
            upgraded.authentication = cipher.authentication(of: upgraded)
            try storage.replace(RepositoryJSON.encode(upgraded), as: .config)
        }
        if !unlocked.promisesAuthenticatedConfig {
            _ = try KeyFile.sealing(
                unlocked.master + [KeyFile.promise], under: unlocked.key, derivation: unlocked.derivation
            ).store(in: storage)
        }
        for name in unlocked.legacyFiles { try storage.delete(name) }
        return upgraded
    }

    /// Raises the stored `config` when its format is below `version`, so that a program that
    /// cannot read what comes next refuses the repository instead of misreading it. Called before
    /// the first object of the newer format is referred to; a config at `version` or later is left
    /// as it is.
    ///
    /// A raise goes to ``RepositoryConfig/currentVersion``, whatever `version` asks (authenticated
    /// again in an encrypted repository, as ``upgrade(_:cipher:unlocked:in:)`` writes it): the
    /// config is replaced without a lock, and backups of several devices may raise it at once, so
    /// every raise writes the same bytes and none can undo another's (one writing 3 after another wrote
    /// 4 would let a program that reads only 1–3 open a repository of packs).
    ///
    /// - Throws: as ``storedConfigProblem()`` for a stored config that changed; the storage's errors.
    func requireFormat(_ version: Int) throws(SandboxError) {
        var stored = try Self.readConfig(storage)
        guard stored.version < version else { return }
        if let problem = try storedConfigProblem() {
            throw SandboxError(.repositoryDamaged, problem, path: storage.location)
        }
        stored.version = max(version, RepositoryConfig.currentVersion)
        stored.authentication = stored.encrypted ? cipher.authentication(of: stored) : nil
        try storage.replace(RepositoryJSON.encode(stored), as: .config)
    }

    /// Refuses an unencrypted config beside key files: someone turned `encrypted` off, so that a
    /// backup run without the password would store plaintext in an encrypted repository.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` naming a key file.
    static func requireNoKeyFiles(_ storage: any RepositoryStorage) throws(SandboxError) {
        if let key = try storage.list(.key).first {
            throw RepositoryConfig.unusable(
                storage.location,
                "encrypted is false, but the repository holds the key file '\(key)' of an encrypted one, so someone changed it"
            )
        }
    }

    /// What is wrong with the `config` stored now (it may have changed since this repository was
    /// opened), in a sentence naming the field — or `nil` when a restore can use it.
    ///
    /// - Throws: the storage's errors other than a missing config.
    func storedConfigProblem() throws(SandboxError) -> String? {
        do throws(SandboxError) {
            let stored = try Self.readConfig(storage)
            guard stored.encrypted == config.encrypted else {
                throw RepositoryConfig.unusable(
                    storage.location,
                    "encrypted is \(stored.encrypted), where the repository was opened as \(config.encrypted)")
            }
            if stored.encrypted {
                _ = try Self.verify(
                    stored, cipher: cipher, keyPromise: keyPromisesAuthenticatedConfig, location: storage.location)
            } else {
                try Self.requireNoKeyFiles(storage)
            }
            return nil
        } catch  where error.code == .repositoryDamaged || error.code == .notARepository {
            return error.message
        }
    }
}
