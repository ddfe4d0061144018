import Crypto
import Foundation
import Sandbox
import SystemPackage
import Synchronization

/// One app's keychain file with its lock and keys, shared by the ``Keychain`` values made for it.
///
/// Writers hold the lock file's exclusive lock while they read, change and replace the file
/// (atomically, durably). Readers use the rows they last read while the lock file's generation
/// and the file's stamp say nobody wrote since.
final class KeychainStore: Sendable {
    let app: AppIdentifier
    let root: ConfinedRoot
    let path: ContainerPath
    let keys: KeychainKeys
    private let lock: LockFile
    private let cache: Mutex<Cache>

    struct Cache {
        var generation: UInt64?
        var stamp: FileStamp?
        var rows: [KeychainFile.Row] = []
        var index: [ItemIdentity: Int] = [:]
    }

    struct ItemIdentity: Hashable {
        var service: String
        var account: String
    }

    init(home: SandboxHome, app: AppIdentifier) throws(StoreError) {
        self.app = app
        root = home.root
        let files = SandboxHome.keychainFiles(for: app)
        path = files[0]
        try fileSystem { () throws(SandboxError) in
            try home.root.createDirectory(at: SandboxHome.keychainsDirectory, withIntermediateDirectories: true)
            try home.root.setPermissions([.ownerReadWriteExecute], at: SandboxHome.keychainsDirectory)
        }
        keys = KeychainKeys(deviceKey: try DeviceKey.load(from: home), app: app)
        lock = try LockFile(root: home.root, path: files[1])
        cache = Mutex(Cache())
    }

    // MARK: Reading

    /// The current rows and their index, read again only when another writer changed the file.
    func snapshot() throws(StoreError) -> ([KeychainFile.Row], [ItemIdentity: Int]) {
        try cache.withLock { (cache: inout Cache) throws(StoreError) in
            try refresh(&cache)
            return (cache.rows, cache.index)
        }
    }

    private func refresh(_ cache: inout Cache) throws(StoreError) {
        if try cache.generation == lock.generation(), try cache.stamp == stamp() { return }
        try lock.withLock(exclusive: false) { () throws(StoreError) in
            let generation = try lock.generation()
            let rows = try load()
            cache = Cache(generation: generation, stamp: try stamp(), rows: rows, index: Self.index(rows))
        }
    }

    private static func index(_ rows: [KeychainFile.Row]) -> [ItemIdentity: Int] {
        var index: [ItemIdentity: Int] = [:]
        for (position, row) in rows.enumerated() { index[ItemIdentity(service: row.service, account: row.account)] = position }
        return index
    }

    private func stamp() throws(StoreError) -> FileStamp? {
        try FileStamp.of(path, in: root)
    }

    /// The rows of the file, checked: its format, its app, this device's key and the HMAC over
    /// the rows. Empty when there is no file.
    private func load() throws(StoreError) -> [KeychainFile.Row] {
        let bytes: [UInt8]
        do {
            bytes = try root.readContents(of: path, maximumSize: 256 << 20)
        } catch where error.code == .notFound {
            return []
        } catch {
            throw StoreError(error)
        }
        let file: KeychainFile
        do throws(StoreError) {
            file = try PropertyList.decode(KeychainFile.self, from: bytes, path: path.description)
        } catch {
            throw StoreError(.corrupt, "The keychain '\(path)' of \(app) is damaged or truncated. It was left as it was; its items cannot be read until it is restored from a backup.", path: path.description, cause: error.cause)
        }
        guard file.format == KeychainFile.formatName else {
            throw StoreError(.corrupt, "'\(path)' is not a keychain of this store. It was left as it was.", path: path.description)
        }
        guard file.version <= KeychainFile.currentVersion else {
            throw StoreError(.newerVersion, "The keychain '\(path)' is format version \(file.version), newer than this code knows (\(KeychainFile.currentVersion)). Update the sandbox tools; the file was left as it was.", path: path.description)
        }
        guard file.app == app.rawValue else {
            throw StoreError(.authenticationFailed, "The keychain '\(path)' belongs to '\(file.app)', not \(app): it was copied or renamed. It was left as it was.", path: path.description)
        }
        guard file.keyCheck == keys.keyCheck else {
            throw StoreError(.authenticationFailed, "The keychain '\(path)' was made on another device (under another Device/device.key): keychains never move between devices. It was left as it was.", path: path.description)
        }
        guard file.seal == keys.seal(file.rows) else {
            throw StoreError(.authenticationFailed, "The keychain '\(path)' has been tampered with: its rows do not match their seal. It was left as it was; restore it from a backup.", path: path.description)
        }
        return file.rows
    }

    /// Opens one row.
    func open(_ row: KeychainFile.Row) throws(StoreError) -> KeychainItem {
        let payload: SealedPayload
        do {
            let box = try AES.GCM.SealedBox(combined: row.sealed)
            let plain = try AES.GCM.open(box, using: keys.sealing, authenticating: keys.identity(service: row.service, account: row.account))
            payload = try PropertyListDecoder().decode(SealedPayload.self, from: plain)
        } catch {
            throw StoreError(
                .authenticationFailed,
                "The keychain item (service '\(row.service)', account '\(row.account)') in '\(path)' failed to open: it was tampered with, swapped or copied from another keychain. The file was left as it was.",
                path: path.description
            )
        }
        return KeychainItem(
            service: row.service, account: row.account, label: payload.label, comment: payload.comment,
            accessibility: payload.accessibility, attributes: payload.attributes,
            creationDate: payload.created, modificationDate: payload.modified, secret: payload.secret
        )
    }

    /// Seals an item into a row.
    func seal(_ item: KeychainItem) throws(StoreError) -> KeychainFile.Row {
        let payload = SealedPayload(
            secret: item.secret, label: item.label, comment: item.comment, accessibility: item.accessibility,
            attributes: item.attributes, created: item.creationDate, modified: item.modificationDate
        )
        let plain = try PropertyList.encode(payload)
        do {
            let box = try AES.GCM.seal(plain, using: keys.sealing, authenticating: keys.identity(service: item.service, account: item.account))
            guard let combined = box.combined else {
                throw StoreError(.encodingFailed, "AES-GCM gave no combined form for a 12-byte nonce.")
            }
            return KeychainFile.Row(service: item.service, account: item.account, sealed: combined)
        } catch let error as StoreError {
            throw error
        } catch {
            throw StoreError(.encodingFailed, "Sealing the keychain item (service '\(item.service)', account '\(item.account)') failed.", cause: .encoding(String(describing: error)))
        }
    }

    // MARK: Writing

    /// Changes the rows under the exclusive lock and writes them, atomically and durably. A file
    /// that fails its checks is never overwritten: the error propagates first.
    func modify<T: Sendable>(_ change: (inout [KeychainFile.Row], [ItemIdentity: Int]) throws(StoreError) -> T) throws(StoreError) -> T {
        try cache.withLock { (cache: inout Cache) throws(StoreError) in
            try lock.withLock(exclusive: true) { () throws(StoreError) in
                let generation = try lock.generation()
                let current = try stamp()
                if cache.generation != generation || cache.stamp != current {
                    let rows = try load()
                    cache = Cache(generation: generation, stamp: try stamp(), rows: rows, index: Self.index(rows))
                }
                var rows = cache.rows
                let result = try change(&rows, cache.index)
                let file = KeychainFile(
                    format: KeychainFile.formatName, version: KeychainFile.currentVersion, app: app.rawValue,
                    keyCheck: keys.keyCheck, rows: rows, seal: keys.seal(rows)
                )
                let bytes = try PropertyList.encode(file)
                let isNew = cache.stamp == nil
                try fileSystem { () throws(SandboxError) in
                    try root.writeContents(bytes, to: path, options: [.atomic, .durable])
                    if isNew { try root.setPermissions([.ownerReadWrite], at: path) }
                }
                try lock.setGeneration(generation &+ 1)
                cache = Cache(generation: generation &+ 1, stamp: try stamp(), rows: rows, index: Self.index(rows))
                return result
            }
        }
    }
}
