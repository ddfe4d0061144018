import Foundation
import Sandbox

/// An app's keychain of generic passwords, with the API of KeychainAccess.
///
///     let keychain = try Keychain(home: home, app: app, service: "com.example.api")
///     try keychain.label("API token").set("s3cr3t", key: "alice")
///     let token = try keychain.get("alice")        // "s3cr3t"
///     try keychain.remove("alice")
///
/// Items live outside the app's container, in `Device/Apps/<app-id>/keychain.plist` under the
/// sandbox home, encrypted with AES-GCM under a key derived from the device's own key
/// (`Device/device.key`, made by the device's first keychain write, never by a read); see
/// `KeychainFile.swift` for the format. No secret is ever written in the clear. An older copy of the
/// file is refused (``SandboxCore/SandboxError/Code/rolledBack``). Uninstalling the app deletes its items;
/// updating it keeps them.
///
/// A `Keychain` is a value: ``label(_:)``, ``comment(_:)``, ``accessibility(_:)`` and
/// ``attributes(_:)`` return a copy configured for the next ``set(_:key:)-(String,_)``. Copies share the
/// file, its lock and its cache.
public struct Keychain: Sendable {
    /// `kSecAttrService` of the items this value reads and writes.
    public let service: String
    /// The label given to items written through this value.
    public private(set) var itemLabel: String?
    /// The comment given to items written through this value.
    public private(set) var itemComment: String?
    /// The accessibility class given to items written; ``KeychainAccessibility/afterFirstUnlock``
    /// unless set.
    public private(set) var itemAccessibility: KeychainAccessibility = .afterFirstUnlock
    /// Further attributes given to items written.
    public private(set) var itemAttributes: [String: String] = [:]
    let store: KeychainStore

    /// The keychain of the installed app `app` on the device `home`, for items of `service` (the
    /// app identifier when not given, as KeychainAccess uses the bundle identifier). Nothing is
    /// read, and no key made, until an item is read or written.
    ///
    /// With `accessGroup`, the items are the App Group's (`kSecAttrAccessGroup`): shared by every
    /// member of the group, refused to other apps, kept in `Device/AppGroups/<group-id>/` under a
    /// key of their own derived from the device key, device-bound as an app's are.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/invalidName`` for an empty service,
    ///   ``/SandboxCore/SandboxError/Code/notFound`` when `app` is not installed,
    ///   `not-a-group-member` when `app`'s signed bundle does not list
    ///   `accessGroup` (and the signature errors of reading its groups), and the core's codes.
    public init(
        home: SandboxHome, app: AppIdentifier, service: String? = nil, accessGroup: AppGroupIdentifier? = nil
    ) throws(SandboxError) {
        let service = service ?? app.rawValue
        guard !service.isEmpty else {
            throw SandboxError(
                .invalidName,
                "A keychain service cannot be empty; use the app identifier or a name such as 'com.example.api'.")
        }
        self.service = service
        if let accessGroup {
            store = try KeychainStore(home: home, app: app, group: accessGroup)
        } else {
            store = try KeychainStore(home: home, app: app)
        }
    }

    /// The app whose keychain this is (for an access group, the member that opened it).
    public var app: AppIdentifier { store.app }

    /// The App Group whose items these are; `nil` for the app's own.
    public var accessGroup: AppGroupIdentifier? {
        if case .group(let group) = store.owner { return group }
        return nil
    }

    // MARK: Configuration

    /// A copy that writes items with `label`.
    public func label(_ label: String?) -> Keychain { with { $0.itemLabel = label } }
    /// A copy that writes items with `comment`.
    public func comment(_ comment: String?) -> Keychain { with { $0.itemComment = comment } }
    /// A copy that writes items with the accessibility class `accessibility`.
    public func accessibility(_ accessibility: KeychainAccessibility) -> Keychain {
        with { $0.itemAccessibility = accessibility }
    }
    /// A copy that writes items with `attributes`.
    public func attributes(_ attributes: [String: String]) -> Keychain { with { $0.itemAttributes = attributes } }

    private func with(_ change: (inout Keychain) -> Void) -> Keychain {
        var copy = self
        change(&copy)
        return copy
    }

    // MARK: Items

    /// Stores `value` (as UTF-8) for the account `key`, creating or replacing the item.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/invalidName`` for an empty key;
    ///   ``/SandboxCore/SandboxError/Code/corrupt`` or ``SandboxCore/SandboxError/Code/authenticationFailed`` when the file on
    ///   disk fails its checks, ``SandboxCore/SandboxError/Code/rolledBack`` when it is an older copy than the
    ///   device last wrote (it is not overwritten in either case); ``SandboxCore/SandboxError/Code/deviceKeyMissing``
    ///   when `Device/device.key` is gone while keychains exist; the core's codes.
    public func set(_ value: String, key: String) throws(SandboxError) {
        try set(Data(value.utf8), key: key)
    }

    /// Stores `data` for the account `key`, creating or replacing the item. A replaced item keeps
    /// its creation date.
    ///
    /// - Throws: as ``set(_:key:)-(String,_)``.
    public func set(_ data: Data, key: String) throws(SandboxError) {
        try requireName(key)
        let now = Date()
        let service = service
        try store.modify { (change: inout KeychainStore.Change) throws(SandboxError) in
            let identity = KeychainStore.ItemIdentity(service: service, account: key)
            let existing = change.index[identity]
            let created =
                try existing.map { (position: Int) throws(SandboxError) in
                    try change.open(change.rows[position]).creationDate
                } ?? now
            let item = KeychainItem(
                service: service, account: key, label: itemLabel, comment: itemComment,
                accessibility: itemAccessibility,
                attributes: itemAttributes, creationDate: created, modificationDate: now, secret: data
            )
            let row = try change.seal(item)
            if let existing { change.rows[existing] = row } else { change.rows.append(row) }
        }
    }

    /// The secret of the account `key` as a string, or `nil` when there is no such item.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/invalidValue`` when the secret is not
    ///   UTF-8 (use ``getData(_:)``), ``SandboxCore/SandboxError/Code/authenticationFailed`` for a tampered item
    ///   or file, ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged file, ``SandboxCore/SandboxError/Code/rolledBack``
    ///   for an older copy, ``SandboxCore/SandboxError/Code/deviceKeyMissing`` when the file exists but the
    ///   device key does not (no key is made by a read).
    public func get(_ key: String) throws(SandboxError) -> String? {
        guard let data = try getData(key) else { return nil }
        guard let string = String(data: data, encoding: .utf8) else {
            throw SandboxError(
                .invalidValue,
                "The keychain item '\(key)' of service '\(service)' holds \(data.count) bytes that are not UTF-8 text; read it with getData."
            )
        }
        return string
    }

    /// The secret of the account `key`, or `nil` when there is no such item.
    ///
    /// - Throws: as ``get(_:)``, less the UTF-8 check.
    public func getData(_ key: String) throws(SandboxError) -> Data? {
        try item(key)?.secret
    }

    /// The whole item of the account `key` (attributes and secret), or `nil`.
    ///
    /// - Throws: as ``getData(_:)``.
    public func item(_ key: String) throws(SandboxError) -> KeychainItem? {
        let (rows, index) = try store.snapshot()
        guard let position = index[KeychainStore.ItemIdentity(service: service, account: key)] else { return nil }
        return try store.open(rows[position])
    }

    /// Whether the account `key` has an item.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` and ``SandboxCore/SandboxError/Code/authenticationFailed`` for a
    ///   file that fails its checks.
    public func contains(_ key: String) throws(SandboxError) -> Bool {
        try store.snapshot().1[KeychainStore.ItemIdentity(service: service, account: key)] != nil
    }

    /// Removes the item of the account `key`.
    ///
    /// - Returns: whether there was one.
    /// - Throws: as ``set(_:key:)-(String,_)``.
    @discardableResult
    public func remove(_ key: String) throws(SandboxError) -> Bool {
        let service = service
        guard try contains(key) else { return false }
        return try store.modify { (change: inout KeychainStore.Change) throws(SandboxError) in
            let before = change.rows.count
            change.rows.removeAll { $0.service == service && $0.account == key }
            return change.rows.count != before
        }
    }

    /// Removes every item of this service.
    ///
    /// - Throws: as ``set(_:key:)-(String,_)``.
    public func removeAll() throws(SandboxError) {
        let service = service
        try store.modify { (change: inout KeychainStore.Change) throws(SandboxError) in
            change.rows.removeAll { $0.service == service }
        }
    }

    /// The accounts of this service, sorted.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` and ``SandboxCore/SandboxError/Code/authenticationFailed``.
    public func allKeys() throws(SandboxError) -> [String] {
        try store.snapshot().0.filter { $0.service == service }.map(\.account).sorted()
    }

    /// Every item of this service, opened, sorted by account.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` and ``SandboxCore/SandboxError/Code/authenticationFailed``.
    public func allItems() throws(SandboxError) -> [KeychainItem] {
        var items: [KeychainItem] = []
        for row in try store.snapshot().0 where row.service == service { items.append(try store.open(row)) }
        return items.sorted { $0.account < $1.account }
    }

    private func requireName(_ key: String) throws(SandboxError) {
        guard !key.isEmpty else {
            throw SandboxError(.invalidName, "A keychain key (account) cannot be empty.")
        }
    }
}
