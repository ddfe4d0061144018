import Foundation

/// When a keychain item may be read, as iOS names the classes (`kSecAttrAccessible…`).
///
/// Reading follows the device's lock state (``DataProtection``): `whenUnlocked…` items cannot be
/// read while the device is locked, `afterFirstUnlock…` ones until the first unlock after a
/// restart (see ``protectionClass``); without a passcode every class is readable. The class is
/// stored with the item and decides what a backup may carry to another device
/// (`…ThisDeviceOnly` never leaves this one).
public enum KeychainAccessibility: String, Sendable, Hashable, Codable, CaseIterable {
    case whenUnlocked
    /// The default, as in KeychainAccess: readable by background work after the first unlock.
    case afterFirstUnlock
    case always
    case whenPasscodeSetThisDeviceOnly
    case whenUnlockedThisDeviceOnly
    case afterFirstUnlockThisDeviceOnly
    case alwaysThisDeviceOnly

    /// Whether the item may move to another device in an encrypted backup.
    public var isThisDeviceOnly: Bool { rawValue.hasSuffix("ThisDeviceOnly") }
}

/// A generic-password item: its identity (service and account), its attributes and its secret.
public struct KeychainItem: Sendable, Hashable {
    /// `kSecAttrService`.
    public var service: String
    /// `kSecAttrAccount`: the key in ``Keychain/set(_:key:)-(String,_)``.
    public var account: String
    /// `kSecAttrLabel`.
    public var label: String?
    /// `kSecAttrComment`.
    public var comment: String?
    /// `kSecAttrAccessible`: when the item may be read.
    public var accessibility: KeychainAccessibility
    /// Further attributes, as strings.
    public var attributes: [String: String]
    /// `kSecAttrCreationDate`: when the item was first stored; replacing its secret keeps it.
    public var creationDate: Date
    /// `kSecAttrModificationDate`: when the item was last stored.
    public var modificationDate: Date
    /// The secret (`kSecValueData`).
    public var secret: Data
}

/// What is encrypted of an item: everything but its identity.
struct SealedPayload: Codable {
    var secret: Data
    var label: String?
    var comment: String?
    var accessibility: KeychainAccessibility
    var attributes: [String: String]
    var created: Date
    var modified: Date
}
