import Crypto
import Foundation
import SandboxCore
import SandboxStore
import Synchronization

/// A backup repository: content-addressed, write-once blobs, then indexes, then snapshot records,
/// each object published atomically, so a process killed at any moment leaves a valid repository
/// (at worst some blobs no snapshot refers to yet, which ``Pruner`` removes).
///
/// Layout: `config`, `keys/`, `data/<2 hex>/<id>`, `index/`, `snapshots/`, `locks/`
/// (docs/repository-format.md). Format 4 keeps blobs in packs of 4–16 MiB, one kind a pack; formats
/// 1–3 kept one object a blob ("loose"), which every reader still finds.
public final class Repository: Sendable {
    /// Where the repository's objects are kept.
    public let storage: any RepositoryStorage
    /// The repository's `config`, checked when it was opened.
    public let config: RepositoryConfig
    /// How ``config`` is vouched for.
    public let configAuthentication: ConfigAuthentication
    let cipher: RepositoryCipher
    /// Whether the key file the password opened promises an authenticated config.
    let keyPromisesAuthenticatedConfig: Bool
    /// The index, once loaded (``loadedIndex()``); dropped when a backup or prune changes it.
    let indexCache = Mutex<LoadedIndex?>(nil)
    /// The zstd contexts of the threads packing and unpacking blobs (``sealForPack(_:)``,
    /// ``unpack(_:id:compression:uncompressedLength:pack:)``).
    let compressionPool = CompressionPool()

    private init(
        storage: any RepositoryStorage, config: RepositoryConfig, configAuthentication: ConfigAuthentication,
        cipher: RepositoryCipher, keyPromisesAuthenticatedConfig: Bool
    ) {
        self.storage = storage
        self.config = config
        self.configAuthentication = configAuthentication
        self.cipher = cipher
        self.keyPromisesAuthenticatedConfig = keyPromisesAuthenticatedConfig
    }

    // MARK: Opening

    /// Opens the repository in `storage`, checking every field of its `config` and, when
    /// encrypted, its authentication under the master key. Writes nothing: an encrypted repository
    /// an older version wrote opens with ``ConfigAuthentication/legacy`` (``Checker`` warns), and
    /// ``openOrCreate(_:password:chunking:)`` authenticates it.
    ///
    /// - Parameters:
    ///   - storage: where the repository's objects are kept.
    ///   - password: the password of an encrypted repository; `nil` for an unencrypted one.
    /// - Throws: ``SandboxCore/SandboxError/Code/notARepository`` when there is no `config`, one that
    ///   does not decode, or one of a newer format; ``SandboxCore/SandboxError/Code/repositoryDamaged``
    ///   naming the field, its value and the legal range for a config backup or restore cannot use,
    ///   or one changed without the key (its authentication does not match, was removed, or an
    ///   unencrypted config sits beside key files); ``SandboxCore/SandboxError/Code/wrongPassword``
    ///   for a wrong password, a missing one (encrypted repository) or one given to an unencrypted
    ///   repository.
    public static func open(
        _ storage: any RepositoryStorage, password: [UInt8]?
    ) async throws(SandboxError)
        -> Repository
    {
        try await OwnedThread.run(name: "sandbox-repository") { () throws(SandboxError) in
            try open(storage, password: password)
        }
    }

    /// ``open(_:password:)`` on the calling thread, which it blocks.
    package static func open(_ storage: any RepositoryStorage, password: [UInt8]?) throws(SandboxError) -> Repository {
        try open(storage, password: password, upgrading: false)
    }

    /// Opens the repository; with `upgrading`, authenticates a legacy encrypted config (see
    /// ``ConfigAuthentication/legacy``).
    static func open(
        _ storage: any RepositoryStorage, password: [UInt8]?, upgrading: Bool
    ) throws(SandboxError)
        -> Repository
    {
        let config = try readConfig(storage)
        guard config.encrypted else {
            if password != nil {
                throw SandboxError(
                    .wrongPassword,
                    "The repository '\(storage.location)' is not encrypted, so it takes no password: leave out --password-file.",
                    path: storage.location)
            }
            try requireNoKeyFiles(storage)
            return Repository(
                storage: storage, config: config, configAuthentication: .none, cipher: .plain,
                keyPromisesAuthenticatedConfig: false)
        }
        guard let password else {
            throw SandboxError(
                .wrongPassword,
                "The repository '\(storage.location)' is encrypted: give its password with --password-file FILE.",
                path: storage.location)
        }
        let unlocked = try UnlockedKey.unlock(storage, password: password) { candidate in
            // A master key that does not authenticate the config is passed over for another
            // (its error is the one thrown below when no key file's does).
            (try? verify(
                config, cipher: RepositoryCipher(master: candidate.master),
                keyPromise: candidate.promisesAuthenticatedConfig, location: storage.location)) != nil
        }
        let cipher = RepositoryCipher(master: unlocked.master)
        var authentication = try verify(
            config, cipher: cipher, keyPromise: unlocked.promisesAuthenticatedConfig, location: storage.location)
        var current = config
        if upgrading, authentication == .legacy || !unlocked.legacyFiles.isEmpty {
            current = try upgrade(config, cipher: cipher, unlocked: unlocked, in: storage)
            authentication = .authenticated
        }
        return Repository(
            storage: storage, config: current, configAuthentication: authentication, cipher: cipher,
            keyPromisesAuthenticatedConfig: unlocked.promisesAuthenticatedConfig || upgrading)
    }

    /// Opens the repository in `storage`, making a new one first when it has no `config`. An
    /// encrypted repository an older version wrote is authenticated here (its `config` rewritten
    /// as format 2 with ``RepositoryConfig/authentication``, its key file replaced by one that
    /// promises it), so ``ConfigAuthentication/legacy`` never reaches a backup.
    ///
    /// - Parameters:
    ///   - storage: where the repository's objects are kept.
    ///   - password: the password of an encrypted repository, or of a new one to encrypt; `nil`
    ///     for an unencrypted one.
    ///   - chunking: the chunk sizes of a new repository (an existing one keeps its own).
    /// - Throws: as ``open(_:password:)``, and the storage's errors writing the upgrade.
    public static func openOrCreate(
        _ storage: any RepositoryStorage, password: [UInt8]?, chunking: ChunkingParameters = .standard
    ) async throws(SandboxError) -> Repository {
        try await OwnedThread.run(name: "sandbox-repository") { () throws(SandboxError) in
            try openOrCreate(storage, password: password, chunking: chunking)
        }
    }

    /// ``openOrCreate(_:password:chunking:)`` on the calling thread, which it blocks.
    package static func openOrCreate(
        _ storage: any RepositoryStorage, password: [UInt8]?, chunking: ChunkingParameters = .standard
    ) throws(SandboxError) -> Repository {
        if try storage.size(of: .config) != nil { return try open(storage, password: password, upgrading: true) }
        var master: [UInt8] = []
        var generator = SystemRandomNumberGenerator()
        var keyFile: ObjectName?
        if let password {
            master = (0..<64).map { _ in UInt8.random(in: 0...255, using: &generator) }
            let derivation = PasswordKeyDerivation.standard()
            let key = try derivation.deriveKey(from: password)
            keyFile = try KeyFile.sealing(master + [KeyFile.promise], under: key, derivation: derivation).store(
                in: storage)
        }
        let cipher = password == nil ? RepositoryCipher.plain : RepositoryCipher(master: master)
        let id = Hex.string((0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) })
        var config = RepositoryConfig(
            version: RepositoryConfig.currentVersion, id: id, chunking: chunking, encrypted: password != nil)
        config.authentication = cipher.authentication(of: config)
        // Two processes creating one repository at once (devices of a fleet backing up into a new
        // bucket): the first config wins, the other removes its key file — sealing a master key
        // the config does not use, it would be taken for the repository's by whoever found it
        // first — and opens the repository.
        if try !storage.putIfAbsent(RepositoryJSON.encode(config), as: .config) {
            if let keyFile { try storage.delete(keyFile) }
            return try open(storage, password: password, upgrading: true)
        }
        return Repository(
            storage: storage, config: config, configAuthentication: password == nil ? .none : .authenticated,
            cipher: cipher, keyPromisesAuthenticatedConfig: password != nil)
    }

    // MARK: Blobs

    /// The id `bytes` would be stored under.
    func blobID(of bytes: UnsafeRawBufferPointer) -> String {
        cipher.blobID(of: bytes)
    }

    /// Stores `bytes` as a loose blob (`data/<2 hex>/<id>`, as formats 1–3 did) unless one of the
    /// same id exists: kept for tests that make a repository of an older format.
    ///
    /// - Returns: the id, and how many bytes were written (0 when it existed).
    func storeBlob(_ bytes: UnsafeRawBufferPointer, id: String) throws(SandboxError) -> Int {
        let sealed = try cipher.seal(bytes)
        return try storage.putIfAbsent(sealed, as: ObjectName(.data, id)) ? sealed.count : 0
    }

    // MARK: Records

    /// Seals and stores a JSON record of `kind`, named by the SHA-256 of its stored bytes.
    func storeRecord(_ value: some Encodable, kind: ObjectKind) throws(SandboxError) -> String {
        try storeSealedRecord(RepositoryJSON.encode(value), kind: kind)
    }

    /// Seals and stores `plain` as a record of `kind`, named by the SHA-256 of its stored bytes.
    func storeSealedRecord(_ plain: [UInt8], kind: ObjectKind) throws(SandboxError) -> String {
        let sealed = try plain.withBytes { (buffer) throws(SandboxError) in try cipher.seal(buffer) }
        let id = Hex.string(SHA256.hash(data: sealed))
        _ = try storage.putIfAbsent(sealed, as: ObjectName(kind, id))
        return id
    }

    /// Reads a record, checking its name against its stored bytes.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` when it is truncated or damaged.
    func loadRecord<T: Decodable>(_ type: T.Type, _ name: ObjectName) throws(SandboxError) -> T {
        let plain = try loadRecordPlaintext(name)
        do {
            return try RepositoryJSON.decode(type, from: plain, name: name.description)
        } catch {
            throw SandboxError(
                .repositoryDamaged, "The repository object '\(name)' cannot be read: \(error.detail).",
                path: name.description)
        }
    }

    /// The plaintext of a record, its name checked against its stored bytes.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` when it is truncated or damaged.
    func loadRecordPlaintext(_ name: ObjectName) throws(SandboxError) -> [UInt8] {
        let stored = try storage.get(name)
        guard Hex.string(SHA256.hash(data: stored)) == name.name else {
            throw SandboxError(
                .repositoryDamaged,
                "The repository object '\(name)' in '\(storage.location)' does not match its name: it is truncated or damaged. Remove it, or prune the repository to rebuild the index.",
                path: name.description)
        }
        return try cipher.open(stored, name: name.description)
    }

    /// The snapshots, oldest first.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryDamaged`` for a damaged snapshot record;
    ///   the storage's errors.
    public func snapshots() async throws(SandboxError) -> [Snapshot] {
        try await OwnedThread.run(name: "sandbox-repository") { [self] () throws(SandboxError) in try snapshots() }
    }

    /// The snapshot whose id starts with `prefix` (at least 4 hex digits), or the latest when `nil`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when none (or several) match;
    ///   as ``snapshots()``.
    public func snapshot(matching prefix: String?) async throws(SandboxError) -> Snapshot {
        try await OwnedThread.run(name: "sandbox-repository") { [self] () throws(SandboxError) in
            try snapshot(matching: prefix)
        }
    }

    /// Ends the repository's use: shuts down what its storage holds open (an S3 repository's HTTP
    /// client and its connections). Call it once every operation on the repository has returned.
    public func close() async {
        await storage.close()
    }

    /// ``snapshots()`` on the calling thread, which it blocks.
    package func snapshots() throws(SandboxError) -> [Snapshot] {
        var result: [Snapshot] = []
        for name in try storage.list(.snapshot) {
            result.append(Snapshot(id: name.name, record: try loadRecord(SnapshotRecord.self, name)))
        }
        return result.sorted { ($0.record.time, $0.id) < ($1.record.time, $1.id) }
    }

    /// ``snapshot(matching:)`` on the calling thread, which it blocks.
    package func snapshot(matching prefix: String?) throws(SandboxError) -> Snapshot {
        let all = try snapshots()
        guard let prefix else {
            guard let last = all.last else {
                throw SandboxError(.notFound, "The repository '\(storage.location)' has no snapshots yet.")
            }
            return last
        }
        let matches = all.filter { $0.id.hasPrefix(prefix.lowercased()) }
        guard prefix.count >= 4, matches.count == 1, let match = matches.first else {
            throw SandboxError(
                .notFound,
                "No single snapshot has an id starting with '\(prefix)' in '\(storage.location)' (\(matches.count) do). List the snapshots to find the one meant."
            )
        }
        return match
    }

    /// Stores `bytes` (a tree, a manifest) as content-defined chunks in loose blobs, as formats 1–3
    /// did (a backup stores them in packs); returns their ids. Kept for tests.
    func storeSplit(
        _ bytes: [UInt8], stored: inout Int64, known: inout Set<String>, index: inout [String: Int]
    )
        throws(SandboxError) -> [String]
    {
        var ids: [String] = []
        var cdc = FastCDC(parameters: config.chunking)
        try bytes.withBytes { (all) throws(SandboxError) in
            var start = 0
            var position = 0
            while position < all.count {
                let (count, ends) = cdc.consume(UnsafeRawBufferPointer(rebasing: all[position...]))
                position += count
                if ends || position == all.count {
                    let piece = UnsafeRawBufferPointer(rebasing: all[start..<position])
                    let id = blobID(of: piece)
                    if known.insert(id).inserted {
                        stored += Int64(try storeBlob(piece, id: id))
                        index[id] = piece.count
                    }
                    ids.append(id)
                    start = position
                }
            }
        }
        return ids
    }

    /// The bytes of blobs `ids`, concatenated.
    func loadSplit(_ ids: [String]) throws(SandboxError) -> [UInt8] {
        var bytes: [UInt8] = []
        for id in ids { bytes += try loadBlob(id) }
        return bytes
    }
}
