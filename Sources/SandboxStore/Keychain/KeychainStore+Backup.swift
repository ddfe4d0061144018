import Crypto
import Foundation
import Sandbox

/// What the backup module needs of an app's keychain: every item, whatever its service; replacing
/// them all at once; and a key only this device can derive, to seal the items a backup may restore
/// on this device only.
package enum KeychainBackupAccess {
    /// Every item of `app`'s keychain (all services), opened.
    ///
    /// - Throws: the errors of ``Keychain/allItems()``.
    package static func items(home: SandboxHome, app: AppIdentifier) throws(SandboxError) -> [KeychainItem] {
        try items(of: try KeychainStore(home: home, app: app))
    }

    /// Replaces every item of `app`'s keychain with `items`, in one write under the keychain's lock.
    ///
    /// - Throws: the errors of ``Keychain/set(_:key:)-(Data,_)``.
    package static func replaceItems(
        _ items: [KeychainItem], home: SandboxHome, app: AppIdentifier
    ) throws(SandboxError) {
        try replace(items, in: try KeychainStore(home: home, app: app))
    }

    /// Every item of `group`'s keychain access group, opened for its member `app`.
    ///
    /// - Throws: `not-a-group-member` when `app`'s signed bundle does not list `group`; the errors
    ///   of ``Keychain/allItems()``.
    package static func items(
        home: SandboxHome, app: AppIdentifier, group: AppGroupIdentifier
    ) throws(SandboxError) -> [KeychainItem] {
        try items(of: try KeychainStore(home: home, app: app, group: group))
    }

    /// Replaces every item of `group`'s keychain access group with `items` (for its member
    /// `app`), in one write under the keychain's lock.
    ///
    /// - Throws: as ``items(home:app:group:)``; the errors of ``Keychain/set(_:key:)-(Data,_)``.
    package static func replaceItems(
        _ items: [KeychainItem], home: SandboxHome, app: AppIdentifier, group: AppGroupIdentifier
    ) throws(SandboxError) {
        try replace(items, in: try KeychainStore(home: home, app: app, group: group))
    }

    private static func items(of store: KeychainStore) throws(SandboxError) -> [KeychainItem] {
        let (rows, _) = try store.snapshot()
        var items: [KeychainItem] = []
        for row in rows { items.append(try store.open(row)) }
        return items
    }

    private static func replace(_ items: [KeychainItem], in store: KeychainStore) throws(SandboxError) {
        try store.modify { (change: inout KeychainStore.Change) throws(SandboxError) in
            var rows: [KeychainFile.Row] = []
            for item in items { rows.append(try change.seal(item)) }
            change.rows = rows
        }
    }

    /// A key derived from the device key for `purpose` (HKDF-SHA256), or `nil` when the device has
    /// no key yet. It never leaves the device: what it seals opens on this device only.
    ///
    /// - Throws: the errors of reading `Device/device.key`.
    package static func deviceBoundKey(home: SandboxHome, purpose: String) throws(SandboxError) -> SymmetricKey? {
        guard let deviceKey = try DeviceKey.existing(in: home) else { return nil }
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: deviceKey, info: Data(purpose.utf8), outputByteCount: 32)
    }
}

extension KeychainItem {
    /// An item from all its parts, as a backup recorded it.
    package init(
        restoring service: String, account: String, label: String?, comment: String?,
        accessibility: KeychainAccessibility, attributes: [String: String], creationDate: Date,
        modificationDate: Date, secret: Data
    ) {
        self.init(
            service: service, account: account, label: label, comment: comment, accessibility: accessibility,
            attributes: attributes, creationDate: creationDate, modificationDate: modificationDate, secret: secret)
    }
}
