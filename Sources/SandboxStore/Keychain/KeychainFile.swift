import Crypto
import Foundation
import Sandbox

/// One app's keychain on disk (``KeychainLocation``), a binary property list.
///
/// The service and account of each item are stored in the clear (they are look-up keys, as in
/// iOS and the Secret Service); everything else, the secret first, is sealed with AES-GCM under
/// the app's key, with the item's identity (app, service, account) as associated data, so a row
/// edited, swapped with another or copied to another app's keychain fails to open. A key check
/// tells a keychain made on another device from a damaged one, and an HMAC over all rows catches
/// rows that were removed or reordered. The HMAC also covers the file's generation (version 2),
/// which the device records after each write (``KeychainGenerationRecord``), so an older copy of
/// the file is refused.
///
/// Keys: `appKey = HKDF-SHA256(deviceKey, salt: "SandboxStore.Keychain.v1", info: "app:<app-id>")`
/// (`"group:<group-id>"` for an App Group's keychain, whose `app` field and associated data name
/// `group:<group-id>`),
/// and from it one key to seal items and one to authenticate the file.
struct KeychainFile: Codable, Sendable {
    static let formatName = "SandboxStore.Keychain"
    /// 2: the generation, under the seal. Version 1 files (no generation) are read as generation 0.
    static let currentVersion = 2

    struct Row: Codable, Sendable {
        var service: String
        var account: String
        /// Nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes).
        var sealed: Data
    }

    var format: String
    var version: Int
    var app: String
    /// HMAC(authentication key, "key-check"): whether this device's key made the file.
    var keyCheck: Data
    var rows: [Row]
    /// How many writes made this file (version 2); sealed with the rows.
    var generation: UInt64?
    /// HMAC(authentication key, the generation and every row): whether the rows are the ones
    /// written, at that generation.
    var seal: Data

    /// The generation, 0 for a version 1 file.
    var sealedGeneration: UInt64 { generation ?? 0 }
}

/// The keys of one app's (or one App Group's) keychain.
struct KeychainKeys: Sendable {
    let owner: KeychainOwner
    let sealing: SymmetricKey
    let authentication: SymmetricKey

    init(deviceKey: SymmetricKey, owner: KeychainOwner) {
        self.owner = owner
        let salt = Data("SandboxStore.Keychain.v1".utf8)
        let appKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: deviceKey, salt: salt, info: Data(owner.keyInfo.utf8), outputByteCount: 32)
        sealing = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: appKey, salt: salt, info: Data("seal-items".utf8), outputByteCount: 32)
        authentication = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: appKey, salt: salt, info: Data("authenticate-file".utf8), outputByteCount: 32)
    }

    var keyCheck: Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data("key-check".utf8), using: authentication))
    }

    /// The associated data of an item: its identity, each part length-prefixed so no two
    /// identities share an encoding.
    func identity(service: String, account: String) -> Data {
        Self.canonical(["SandboxStore.Keychain.item.v1", owner.name, service, account])
    }

    /// The HMAC over `rows` at `generation`; `nil` gives version 1's, which had no generation.
    func seal(_ rows: [KeychainFile.Row], generation: UInt64?) -> Data {
        var hmac = HMAC<SHA256>(key: authentication)
        if let generation {
            hmac.update(
                data: Self.canonical([
                    "SandboxStore.Keychain.rows.v2", owner.name, String(generation), String(rows.count),
                ]))
        } else {
            hmac.update(data: Self.canonical(["SandboxStore.Keychain.rows.v1", owner.name, String(rows.count)]))
        }
        for row in rows {
            hmac.update(data: Self.canonical([row.service, row.account]))
            hmac.update(data: Self.canonical([String(row.sealed.count)]))
            hmac.update(data: row.sealed)
        }
        return Data(hmac.finalize())
    }

    static func canonical(_ parts: [String]) -> Data {
        var data = Data()
        for part in parts {
            let bytes = Array(part.utf8)
            withUnsafeBytes(of: UInt32(bytes.count).bigEndian) { data.append(contentsOf: $0) }
            data.append(contentsOf: bytes)
        }
        return data
    }
}
