import Crypto
import Foundation
import Sandbox
import SandboxCore
import SandboxStore

/// A keychain item as a backup stores it.
struct KeychainItemRecord: Codable, Hashable {
    var service: String
    var account: String
    var label: String?
    var comment: String?
    var accessibility: KeychainAccessibility
    var attributes: [String: String]
    var created: Date
    var modified: Date
    var secret: Data

    init(_ item: KeychainItem) {
        service = item.service
        account = item.account
        label = item.label
        comment = item.comment
        accessibility = item.accessibility
        attributes = item.attributes
        created = item.creationDate
        modified = item.modificationDate
        secret = item.secret
    }

    var item: KeychainItem {
        KeychainItem(
            restoring: service, account: account, label: label, comment: comment, accessibility: accessibility,
            attributes: attributes, creationDate: created, modificationDate: modified, secret: secret)
    }
}

/// An app's keychain in a snapshot, by iOS's rules:
/// - every item is sealed under a key derived from the device's own key (``deviceBound``), so on
///   this device the whole keychain comes back;
/// - with a password (an encrypted repository), items that are not `…ThisDeviceOnly` are also
///   kept in ``portable`` (the blob itself is sealed under the repository's key), so they restore
///   on another device too; `…ThisDeviceOnly` items never leave the device.
struct KeychainRecord: Codable {
    /// The device the items were taken on (see ``DeviceIdentity``).
    var device: String
    /// AES-GCM under the device-bound key of the JSON array of every item.
    var deviceBound: Data
    /// The items that may move to another device; only in encrypted repositories.
    var portable: [KeychainItemRecord]?
}

/// The device a backup was taken on, named without revealing its key.
enum DeviceIdentity {
    static let sealingPurpose = "sandbox-backup keychain v1"
    static let naming = "sandbox-backup device id v1"

    /// The id of `home`'s device, or `nil` when it has no device key (no keychain ever written).
    static func id(of home: SandboxHome) throws(SandboxError) -> String? {
        guard
            let key = try KeychainBackupAccess.deviceBoundKey(home: home, purpose: naming)
        else { return nil }
        return key.withUnsafeBytes { Hex.string(SHA256.hash(data: $0)) }
    }

    /// The key that seals the device-bound part of keychain records.
    static func sealingKey(of home: SandboxHome) throws(SandboxError) -> SymmetricKey? {
        try KeychainBackupAccess.deviceBoundKey(home: home, purpose: sealingPurpose)
    }
}

extension KeychainRecord {
    /// The record of the keychain of `target` (an app's, or an App Group's access group) on
    /// `home`, or `nil` when it has no items.
    static func capture(
        home: SandboxHome, target: RestoreTarget, portable: Bool
    ) throws(SandboxError) -> KeychainRecord? {
        let items = try target.keychainItems(home: home)
        guard !items.isEmpty, let device = try DeviceIdentity.id(of: home),
            let key = try DeviceIdentity.sealingKey(of: home)
        else { return nil }
        let records = items.map(KeychainItemRecord.init)
        let plain = RepositoryJSON.encode(records)
        let sealed: Data
        do {
            guard let combined = try AES.GCM.seal(plain, using: key).combined else {
                throw SandboxError(.unknown, "AES-GCM gave no combined output.")
            }
            sealed = combined
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(.unknown, "Sealing the keychain of \(target) failed: \(error).")
        }
        return KeychainRecord(
            device: device, deviceBound: sealed,
            portable: portable ? records.filter { !$0.accessibility.isThisDeviceOnly } : nil)
    }

    /// What restoring this record on `home` gives: the items to write, and a note when some or all
    /// could not come back here.
    func itemsToRestore(
        on home: SandboxHome, for target: RestoreTarget
    ) throws(SandboxError) -> (
        items: [KeychainItem]?, note: String?
    ) {
        if try DeviceIdentity.id(of: home) == device, let key = try DeviceIdentity.sealingKey(of: home) {
            do {
                let plain = try AES.GCM.open(AES.GCM.SealedBox(combined: deviceBound), using: key)
                let records = try JSONDecoder.repository.decode([KeychainItemRecord].self, from: plain)
                return (records.map(\.item), nil)
            } catch {
                throw SandboxError(
                    .repositoryDamaged, "The keychain of \(target) in the snapshot is damaged and was not restored.")
            }
        }
        guard let portable else {
            return (
                nil,
                "The keychain of \(target) was not restored: this snapshot was taken on another device and is not password-protected, and keychain items move to another device only in an encrypted backup (`--password-file`)."
            )
        }
        let left = portable.count
        return (
            portable.map(\.item),
            "The keychain of \(target) comes from another device: its \(left) item(s) that may move were restored; items marked ThisDeviceOnly stay on the device they were made on."
        )
    }
}

extension JSONDecoder {
    static var repository: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = RepositoryDate.decoding
        return decoder
    }
}
