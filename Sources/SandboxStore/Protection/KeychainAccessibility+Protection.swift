import Sandbox

extension KeychainAccessibility {
    /// The protection class whose key must be available for an item of this class to be read:
    /// `whenUnlocked…` and `whenPasscodeSet…` → ``ProtectionClass/complete``, `afterFirstUnlock…`
    /// → ``ProtectionClass/untilFirstUserAuthentication``, `always…` → ``ProtectionClass/none``.
    public var protectionClass: ProtectionClass {
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: .complete
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: .untilFirstUserAuthentication
        case .always, .alwaysThisDeviceOnly: ProtectionClass.none
        }
    }
}

extension DataProtection {
    /// Refuses to hand out `item` while its accessibility class's key is not available.
    ///
    /// Keychain items stay sealed with the device key alone; this is the lock screen's rule applied
    /// by the keychain API (as ``Keychain`` reads go through it), not an extra layer of encryption.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/protectedDataUnavailable``.
    static func requireAvailable(_ item: KeychainItem, home: SandboxHome) throws(SandboxError) {
        let protection = item.accessibility.protectionClass
        guard protection != ProtectionClass.none else { return }
        let dataProtection = DataProtection(home: home)
        guard try !dataProtection.isAvailable(protection) else { return }
        throw SandboxError(
            .protectedDataUnavailable,
            "The keychain item (service '\(item.service)', account '\(item.account)') is '\(item.accessibility.rawValue)': it cannot be read while \(protection == .complete ? "the device is locked" : "the device has not been unlocked since it restarted"). Unlock the device with its passcode."
        )
    }
}
