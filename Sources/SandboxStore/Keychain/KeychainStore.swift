import Crypto
import Foundation
import Sandbox
import Synchronization
import SystemPackage

/// One app's keychain file with its lock and keys, shared by the ``Keychain`` values made for it.
///
/// Writers hold the lock file's exclusive lock while they read, change and replace the file
/// (atomically, durably) and record its new generation (``KeychainGenerationRecord``). Readers use
/// the rows they last read while the lock file's change counter and the file's stamp say nobody
/// wrote since.
final class KeychainStore: Sendable {
    /// The app that opened the keychain: its owner, or a member of the owning group.
    let app: AppIdentifier
    /// Whose keychain the file is.
    let owner: KeychainOwner
    let home: SandboxHome
    let location: KeychainLocation
    private let lock: FileLock
    private let cache: Mutex<Cache>

    var root: ConfinedRoot { home.root }
    var path: ContainerPath { location.file }

    struct Cache {
        var generation: UInt64?
        var stamp: FileStamp?
        var rows: [KeychainFile.Row] = []
        var index: [ItemIdentity: Int] = [:]
        /// The generation sealed in the file the rows came from.
        var sealedGeneration: UInt64 = 0
        /// Made from the device key when a file had to be opened or written.
        var keys: KeychainKeys?
    }

    struct ItemIdentity: Hashable {
        var service: String
        var account: String
    }

    /// The keychain of the installed app `app`. Opening it reads nothing and makes no key.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/notFound`` when the app is not installed,
    ///   and the core's codes.
    convenience init(home: SandboxHome, app: AppIdentifier) throws(SandboxError) {
        try self.init(home: home, app: app, owner: .app(app), container: try home.container(for: app))
    }

    /// The keychain access group of the App Group `group`, for its member `app`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when `app` is not installed;
    ///   `not-a-group-member` when its signed bundle does not list
    ///   `group`, and the errors of `Container.appGroups()`.
    convenience init(home: SandboxHome, app: AppIdentifier, group: AppGroupIdentifier) throws(SandboxError) {
        let container = try home.container(for: app)
        let groups = try container.appGroups()
        guard groups.contains(group) else {
            throw SandboxError(
                .notAGroupMember,
                "'\(app)' is not a member of App Group '\(group)', so it cannot use the group's keychain items: its signed bundle lists \(groups.isEmpty ? "no group" : groups.map(\.rawValue).joined(separator: ", ")). Add the group to the bundle's entitlements (com.apple.security.application-groups), sign it again and update the app.",
                path: group.rawValue)
        }
        try self.init(home: home, app: app, owner: .group(group), container: container)
    }

    private init(home: SandboxHome, app: AppIdentifier, owner: KeychainOwner, container: Container) throws(SandboxError)
    {
        self.app = app
        self.owner = owner
        self.home = home
        let location = try KeychainLocation(owner: owner)
        self.location = location
        do {
            try home.root.createDirectory(at: location.directory, withIntermediateDirectories: true)
            try home.root.setPermissions([.ownerReadWriteExecute], at: location.directory)
        }
        lock = try FileLock(root: home.root, path: location.lock)
        cache = Mutex(Cache())
        if case .app = owner {
            try lock.withLock(exclusive: true) { () throws(SandboxError) in try adoptLegacyFile(installedIn: container)
            }
        }
    }

    // MARK: Reading

    /// The current rows and their index, read again only when another writer changed the file.
    func snapshot() throws(SandboxError) -> ([KeychainFile.Row], [ItemIdentity: Int]) {
        try cache.withLock { (cache: inout Cache) throws(SandboxError) in
            let counter = try lock.generation()
            let current = try stamp()
            if cache.generation != counter || cache.stamp != current {
                try lock.withLock(exclusive: false) { () throws(SandboxError) in try reload(&cache) }
            }
            return (cache.rows, cache.index)
        }
    }

    /// Reads the file into `cache`, under the lock.
    private func reload(_ cache: inout Cache) throws(SandboxError) {
        let generation = try lock.generation()
        let (rows, sealed) = try load(keys: &cache.keys)
        cache = Cache(
            generation: generation, stamp: try stamp(), rows: rows, index: Self.index(rows), sealedGeneration: sealed,
            keys: cache.keys)
    }

    private static func index(_ rows: [KeychainFile.Row]) -> [ItemIdentity: Int] {
        var index: [ItemIdentity: Int] = [:]
        for (position, row) in rows.enumerated() {
            index[ItemIdentity(service: row.service, account: row.account)] = position
        }
        return index
    }

    private func stamp() throws(SandboxError) -> FileStamp? {
        try FileStamp.of(path, in: root)
    }

    /// The rows of the file and its sealed generation, checked: its format, its app, this
    /// device's key, the HMAC over the rows, and the generation against the device's record.
    /// Empty (generation 0) when there is no file — unless the device recorded one, which makes
    /// a missing file a rollback too.
    private func load(keys: inout KeychainKeys?) throws(SandboxError) -> ([KeychainFile.Row], UInt64) {
        let recorded = try KeychainGenerationRecord.read(at: location.generation, in: root)
        let bytes: [UInt8]
        do {
            bytes = try root.readContents(of: path, maximumSize: 256 << 20)
        } catch  where error.code == .notFound {
            try requireCurrent(0, recorded: recorded)
            return ([], 0)
        } catch {
            throw error
        }
        let file: KeychainFile
        do throws(SandboxError) {
            file = try KeychainFile.decode(bytes, path: path.description)
        } catch  where error.code == .corrupt || error.code == .typeMismatch || error.code == .tooLarge {
            throw SandboxError(
                .corrupt,
                "The keychain '\(path)' of \(owner) is damaged or truncated. It was left as it was; its items cannot be read until it is restored from a backup.",
                path: path.description, underlying: error.underlying)
        }
        guard file.version <= KeychainFile.currentVersion else {
            throw SandboxError(
                .newerVersion,
                "The keychain '\(path)' is format version \(file.version), newer than this code knows (\(KeychainFile.currentVersion)). Update the sandbox tools; the file was left as it was.",
                path: path.description)
        }
        guard file.app == owner.name else {
            throw SandboxError(
                .authenticationFailed,
                "The keychain '\(path)' belongs to '\(file.app)', not \(owner): it was copied or renamed. It was left as it was.",
                path: path.description)
        }
        let opened = try self.keys(&keys, creating: false)
        guard file.keyCheck == opened.keyCheck else {
            throw SandboxError(
                .authenticationFailed,
                "The keychain '\(path)' was made on another device (under another Device/device.key): keychains never move between devices. It was left as it was.",
                path: path.description)
        }
        guard file.seal == opened.seal(file.rows, generation: file.version >= 2 ? file.sealedGeneration : nil) else {
            throw SandboxError(
                .authenticationFailed,
                "The keychain '\(path)' has been tampered with: its rows do not match their seal. It was left as it was; restore it from a backup.",
                path: path.description)
        }
        try requireCurrent(file.sealedGeneration, recorded: recorded)
        return (file.rows, file.sealedGeneration)
    }

    /// Refuses a file older than the generation the device recorded.
    private func requireCurrent(_ sealed: UInt64, recorded: UInt64) throws(SandboxError) {
        guard sealed < recorded else { return }
        let what = sealed == 0 ? "is missing (or predates generations)" : "is generation \(sealed)"
        throw SandboxError(
            .rolledBack,
            "The keychain '\(path)' of \(owner) \(what), but this device last wrote generation \(recorded): it is an older copy (rolled back, e.g. restored from an old backup). It was left as it was; restore the latest copy, or uninstall the app to start without its items.",
            path: path.description
        )
    }

    /// The app's keys, made from the device key once. Reading makes no device key: a missing one is
    /// ``SandboxCore/SandboxError/Code/deviceKeyMissing``; `creating` (a write) sets the device up if it has no
    /// keychain yet.
    private func keys(_ keys: inout KeychainKeys?, creating: Bool) throws(SandboxError) -> KeychainKeys {
        if let keys { return keys }
        let deviceKey: SymmetricKey
        if creating {
            deviceKey = try DeviceKey.settingUp(home)
        } else {
            guard let existing = try DeviceKey.existing(in: home) else { throw DeviceKey.missing(for: path) }
            deviceKey = existing
        }
        let made = KeychainKeys(deviceKey: deviceKey, owner: owner)
        keys = made
        return made
    }

    /// Opens one row (of rows that ``snapshot()`` returned: their keys are made), refusing an item
    /// whose accessibility class is not available now (``DataProtection``).
    func open(_ row: KeychainFile.Row) throws(SandboxError) -> KeychainItem {
        let keys = try cache.withLock { (cache: inout Cache) throws(SandboxError) in
            try self.keys(&cache.keys, creating: false)
        }
        let item = try Self.open(row, with: keys, path: path)
        try DataProtection.requireAvailable(item, home: home)
        return item
    }

    private static func open(
        _ row: KeychainFile.Row, with keys: KeychainKeys, path: ContainerPath
    ) throws(SandboxError) -> KeychainItem {
        let payload: SealedPayload
        do {
            let box = try AES.GCM.SealedBox(combined: row.sealed)
            let plain = try AES.GCM.open(
                box, using: keys.sealing, authenticating: keys.identity(service: row.service, account: row.account))
            payload = try PropertyListDecoder().decode(SealedPayload.self, from: plain)
        } catch {
            throw SandboxError(
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

    /// Seals an item into a row with `keys`.
    private static func seal(_ item: KeychainItem, with keys: KeychainKeys) throws(SandboxError) -> KeychainFile.Row {
        let payload = SealedPayload(
            secret: item.secret, label: item.label, comment: item.comment, accessibility: item.accessibility,
            attributes: item.attributes, created: item.creationDate, modified: item.modificationDate
        )
        let plain = try PropertyList.encode(payload)
        do {
            let box = try AES.GCM.seal(
                plain, using: keys.sealing, authenticating: keys.identity(service: item.service, account: item.account))
            guard let combined = box.combined else {
                throw SandboxError(.encodingFailed, "AES-GCM gave no combined form for a 12-byte nonce.")
            }
            return KeychainFile.Row(service: item.service, account: item.account, sealed: combined)
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(
                .encodingFailed,
                "Sealing the keychain item (service '\(item.service)', account '\(item.account)') failed.",
                underlying: .detail(String(describing: error)))
        }
    }

    // MARK: Writing

    /// What a change may do to the rows: read them (opening items), replace them, seal new items.
    struct Change {
        var rows: [KeychainFile.Row]
        let index: [ItemIdentity: Int]
        fileprivate let store: KeychainStore
        fileprivate let keys: KeychainKeys

        /// Opens one of the rows.
        func open(_ row: KeychainFile.Row) throws(SandboxError) -> KeychainItem {
            try KeychainStore.open(row, with: keys, path: store.path)
        }

        /// Seals an item into a row.
        func seal(_ item: KeychainItem) throws(SandboxError) -> KeychainFile.Row {
            try KeychainStore.seal(item, with: keys)
        }
    }

    /// Changes the rows under the exclusive lock and writes them at the next generation,
    /// atomically and durably, then records that generation. A file that fails its checks is
    /// never overwritten: the error propagates first. The device key is made here if the device
    /// has no keychain yet.
    func modify<T: Sendable>(_ body: (inout Change) throws(SandboxError) -> T) throws(SandboxError) -> T {
        try cache.withLock { (cache: inout Cache) throws(SandboxError) in
            try lock.withLock(exclusive: true) { () throws(SandboxError) in
                let counter = try lock.generation()
                let current = try stamp()
                if cache.generation != counter || cache.stamp != current { try reload(&cache) }
                let keys = try self.keys(&cache.keys, creating: true)
                var change = Change(rows: cache.rows, index: cache.index, store: self, keys: keys)
                let result = try body(&change)
                let recorded = try KeychainGenerationRecord.read(at: location.generation, in: root)
                let generation = max(cache.sealedGeneration, recorded) &+ 1
                let rows = change.rows
                let file = KeychainFile(
                    format: KeychainFile.formatName, version: KeychainFile.currentVersion, app: owner.name,
                    keyCheck: keys.keyCheck, rows: rows, generation: generation,
                    seal: keys.seal(rows, generation: generation)
                )
                let bytes = try PropertyList.encode(file)
                let isNew = cache.stamp == nil
                do {
                    try root.writeContents(bytes, to: path, options: [.atomic, .durable])
                    if isNew { try root.setPermissions([.ownerReadWrite], at: path) }
                }
                try KeychainGenerationRecord.write(generation, at: location.generation, in: root)
                try lock.setGeneration(counter &+ 1)
                cache = Cache(
                    generation: counter &+ 1, stamp: try stamp(), rows: rows, index: Self.index(rows),
                    sealedGeneration: generation, keys: keys)
                return result
            }
        }
    }

    // MARK: Format version 1

    /// Moves a keychain of format version 1 (`Device/Keychains/<app-id>.keychain`) to its place in
    /// the app's device-data folder, under the exclusive lock. One last modified before the app's
    /// data container was made belongs to an earlier installation (uninstalled since by code that
    /// no longer knew that path) and is removed instead.
    private func adoptLegacyFile(installedIn container: Container) throws(SandboxError) {
        do {
            guard let legacy = try root.attributes(at: location.legacyFile, followingSymlink: false) else { return }
            let installed = try container.root.attributes(at: .root)?.creationDate
            if try root.attributes(at: location.file, followingSymlink: false) == nil,
                installed.map({ legacy.modificationDate >= $0 }) ?? true
            {
                try root.moveItem(from: location.legacyFile, to: location.file)
            } else {
                try root.removeItem(at: location.legacyFile)
            }
            if try root.attributes(at: location.legacyLock, followingSymlink: false) != nil {
                try root.removeItem(at: location.legacyLock)
            }
        }
    }
}

extension KeychainFile {
    /// Reads a keychain file's structure (nothing is opened or checked against a key).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` (not a keychain file, or damaged),
    ///   ``SandboxCore/SandboxError/Code/tooLarge``, ``SandboxCore/SandboxError/Code/typeMismatch``.
    static func decode(_ bytes: [UInt8], path: String?) throws(SandboxError) -> KeychainFile {
        let file = try PropertyList.decode(KeychainFile.self, from: bytes, path: path)
        guard file.format == formatName else {
            throw SandboxError(
                .corrupt, "'\(path ?? "The data")' is not a keychain of this store. It was left as it was.", path: path)
        }
        guard file.version < 2 || file.generation != nil else {
            throw SandboxError(
                .corrupt,
                "The keychain '\(path ?? "")' is format version \(file.version) but has no generation. It was left as it was.",
                path: path)
        }
        return file
    }
}
