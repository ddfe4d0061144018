import Crypto
import Foundation
import Sandbox

/// The device's Data Protection: its passcode, lock state and class keys (iOS's class-key
/// hierarchy), and the protected files of its containers (``write(_:to:in:protection:options:)``).
///
/// **Keys.** A file's contents are sealed with a random per-file key, which is wrapped by its
/// class's key; the class keys are wrapped in the key bag (`Device/protection.keybag`) by keys
/// derived from the device key and — once a passcode is set, for every class but
/// ``ProtectionClass/none`` — from the passcode (scrypt). **Lock state.** ``unlock(passcode:)``
/// puts the unwrapped class keys in the kernel's user keyring, where every process of the user
/// finds them and nothing writes them to disk; ``lock()`` removes the keys of
/// ``ProtectionClass/complete`` and ``ProtectionClass/completeUnlessOpen``; a restart
/// (``/Sandbox/SandboxHome/restart()``, which starts a new boot session: a key kept in an earlier
/// one is forgotten) or ``forgetKeysAtRestart()`` removes them all. Without a passcode every class
/// is always available, as on an iPhone without one. Files can be written whole
/// (``write(_:to:in:protection:options:)``) or a piece at a time (``openWriter(at:in:protection:options:)``).
///
/// **Not enforced**: root, and any process of the same user, can read the user keyring while the
/// device is unlocked; a locked device's keys are safe only as long as the passcode resists
/// scrypt guessing by someone who also has the device key.
public struct DataProtection: Sendable {
    /// The sandbox home whose device and containers this protects: its key bag is in `Device/`.
    public let home: SandboxHome
    let unlockedKeys: UnlockedKeys

    /// The Data Protection of `home`; reads nothing yet. Where the kernel has no user keyring and
    /// `XDG_RUNTIME_DIR` is unset, what needs an unlocked key later throws `unsupported`.
    public init(home: SandboxHome) {
        self.home = home
        unlockedKeys = UnlockedKeys(home: home)
    }

    /// Whether a passcode is set.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged key bag.
    public var hasPasscode: Bool {
        get throws(SandboxError) { try loadBag()?.passcode != nil }
    }

    /// Whether the key of `protection` is available now (so its files can be read).
    ///
    /// - Throws: as ``hasPasscode``.
    public func isAvailable(_ protection: ProtectionClass) throws(SandboxError) -> Bool {
        guard let bag = try loadBag(), bag.passcode != nil, protection.isPasscodeProtected else { return true }
        return try unlockedKeys.key(for: protection) != nil
    }

    /// Sets, changes or (with an empty `new`) removes the passcode; the device is unlocked after.
    ///
    /// - Parameters:
    ///   - new: the new passcode; empty to remove it.
    ///   - current: the passcode set now; ignored when none is.
    /// - Throws: ``SandboxCore/SandboxError/Code/passcodeIncorrect`` and ``SandboxCore/SandboxError/Code/passcodeBackoff``
    ///   for a wrong `current`, ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged key bag,
    ///   ``SandboxCore/SandboxError/Code/deviceKeyMissing``.
    public func setPasscode(_ new: [UInt8], current: [UInt8]) throws(SandboxError) {
        try withKeyBag { bag, device throws(SandboxError) in
            let oldKey = try bag.passcode == nil ? nil : verifiedPasscodeKey(current, bag: &bag, device: device)
            var keys: [ProtectionClass: [UInt8]] = [:]
            for protection in ProtectionClass.allCases {
                keys[protection] = try bag.unwrap(protection, device: device, passcodeKey: oldKey)
            }
            if new.isEmpty {
                bag.passcode = nil
                try bag.wrap(keys, device: device, passcodeKey: nil)
            } else {
                let derivation = PasswordKeyDerivation.standard()
                let newKey = try derive(new, with: derivation)
                bag.passcode = .init(
                    derivation: derivation, verifier: ProtectionKeyBag.verifier(device: device, passcodeKey: newKey))
                try bag.wrap(keys, device: device, passcodeKey: newKey)
            }
            try save(bag)
            for protection in ProtectionClass.allCases where protection.isPasscodeProtected {
                if let key = keys[protection] { try unlockedKeys.store(key, for: protection) }
            }
        }
    }

    /// Unlocks the device: the class keys become available to every process of the user.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/passcodeIncorrect`` (the failure is counted),
    ///   ``SandboxCore/SandboxError/Code/passcodeBackoff`` while a back-off runs (the passcode is not tried),
    ///   ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged key bag.
    public func unlock(passcode: [UInt8]) throws(SandboxError) {
        try withKeyBag { bag, device throws(SandboxError) in
            guard bag.passcode != nil else { return }
            let passcodeKey = try verifiedPasscodeKey(passcode, bag: &bag, device: device)
            for protection in ProtectionClass.allCases where protection.isPasscodeProtected {
                try unlockedKeys.store(
                    bag.unwrap(protection, device: device, passcodeKey: passcodeKey), for: protection)
            }
        }
    }

    /// Locks the device: the keys of ``ProtectionClass/complete`` and
    /// ``ProtectionClass/completeUnlessOpen`` are forgotten.
    ///
    /// - Returns: `false` when no passcode is set (nothing can be locked).
    /// - Throws: ``/SandboxCore/SandboxError`` when the keyring refuses;
    ///   `container-in-use` when a live user of an app did not let go
    ///   in time (the device stays unlocked).
    @discardableResult
    public func lock() throws(SandboxError) -> Bool {
        guard try hasPasscode else { return false }
        // Every app's live users are told; a share and apps finish their writes first.
        try home.coordinating(.lock, apps: try home.installedApps()) { () throws(SandboxError) in
            for protection in ProtectionClass.allCases where protection.isForgottenOnLock {
                try unlockedKeys.forget(protection)
            }
        }
        return true
    }

    /// Forgets every unlocked class key, as a restart does: until the next unlock, only
    /// ``ProtectionClass/none`` files open.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` when the keyring refuses.
    public func forgetKeysAtRestart() throws(SandboxError) {
        for protection in ProtectionClass.allCases { try unlockedKeys.forget(protection) }
    }

    /// The class key of `protection`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/protectedDataUnavailable`` when it is not unlocked.
    func classKey(for protection: ProtectionClass, path: String?) throws(SandboxError) -> [UInt8] {
        let bag = try keyBagCreatingIfNeeded()
        if bag.passcode == nil || !protection.isPasscodeProtected {
            return try bag.unwrap(protection, device: deviceKey(), passcodeKey: nil)
        }
        if let key = try unlockedKeys.key(for: protection), key.count == 32 { return key }
        throw Self.unavailable(protection, path: path)
    }

    /// The public key that files of ``ProtectionClass/completeUnlessOpen`` are written to.
    func completeUnlessOpenPublicKey() throws(SandboxError) -> Curve25519.KeyAgreement.PublicKey {
        let bag = try keyBagCreatingIfNeeded()
        do {
            return try Curve25519.KeyAgreement.PublicKey(rawRepresentation: bag.completeUnlessOpenPublicKey)
        } catch {
            throw ProtectionKeyBag.damaged("its complete-unless-open public key is invalid")
        }
    }

    static func unavailable(_ protection: ProtectionClass, path: String?) -> SandboxError {
        let what = path.map { "'\($0)'" } ?? "The data"
        let when =
            protection == .untilFirstUserAuthentication
            ? "the device has not been unlocked since it restarted" : "the device is locked"
        return SandboxError(
            .protectedDataUnavailable,
            "\(what) (protection '\(protection.rawValue)') cannot be opened: \(when). Unlock the device with its passcode.",
            path: path)
    }
}
