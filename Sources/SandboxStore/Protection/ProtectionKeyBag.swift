import Crypto
import Foundation
import Sandbox

/// The device's class keys, wrapped, in `Device/protection.keybag` (JSON, mode 0600), beside the
/// device key and the keychains and outside every container — iOS's system key bag.
///
/// Each class key is sealed (AES-256-GCM) with a wrapping key derived (HKDF-SHA256) from the device
/// key and, for every class but ``ProtectionClass/none`` while a passcode is set, from the
/// passcode's scrypt key too: a copied key bag opens neither without the device key nor without the
/// passcode. The passcode itself is never stored; ``PasscodeRecord/verifier`` (an HMAC under a key
/// derived from both) tells a wrong passcode from a damaged key bag. Failed attempts and the time
/// of the last one are kept here, so the back-off survives a restart.
struct ProtectionKeyBag: Codable {
    var version = 1
    var passcode: PasscodeRecord?
    /// Class (raw value) → the sealed class key (nonce ‖ ciphertext ‖ tag).
    var wrappedKeys: [String: Data]
    /// The public half of the ``ProtectionClass/completeUnlessOpen`` key pair, always available.
    var completeUnlessOpenPublicKey: Data
    var failedAttempts = 0
    var lastFailure: Date?

    struct PasscodeRecord: Codable {
        var derivation: PasswordKeyDerivation
        var verifier: Data
    }

    static let path = ContainerPath(constant: "Device/protection.keybag")
    static let lockPath = ContainerPath(constant: "Device/protection.lock")

    /// A new key bag with fresh class keys, wrapped by the device key alone.
    static func generate(device: SymmetricKey) throws(SandboxError) -> ProtectionKeyBag {
        var keys: [ProtectionClass: [UInt8]] = [:]
        for protection in ProtectionClass.allCases {
            keys[protection] = SymmetricKey(size: .bits256).withUnsafeBytes { Array($0) }
        }
        let agreement = Curve25519.KeyAgreement.PrivateKey()
        keys[.completeUnlessOpen] = Array(agreement.rawRepresentation)
        var bag = ProtectionKeyBag(wrappedKeys: [:], completeUnlessOpenPublicKey: agreement.publicKey.rawRepresentation)
        try bag.wrap(keys, device: device, passcodeKey: nil)
        return bag
    }

    /// Seals `keys` with wrapping keys from `device` and, for the passcode classes, `passcodeKey`.
    mutating func wrap(
        _ keys: [ProtectionClass: [UInt8]], device: SymmetricKey, passcodeKey: SymmetricKey?
    ) throws(SandboxError) {
        for (protection, key) in keys {
            let wrapping = Self.wrappingKey(device: device, passcodeKey: passcodeKey, for: protection)
            do {
                guard
                    let combined = try AES.GCM.seal(
                        key, using: wrapping, authenticating: Array(protection.rawValue.utf8)
                    ).combined
                else { throw SandboxError(.encodingFailed, "AES-GCM gave no combined box for a class key.") }
                wrappedKeys[protection.rawValue] = combined
            } catch let error as SandboxError {
                throw error
            } catch {
                throw SandboxError(
                    .encodingFailed, "The class key of '\(protection.rawValue)' could not be sealed: \(error).")
            }
        }
    }

    /// The class key of `protection`, unwrapped.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` when it is missing or fails authentication (the key
    ///   bag is damaged: the verifier already accepted the passcode).
    func unwrap(
        _ protection: ProtectionClass, device: SymmetricKey, passcodeKey: SymmetricKey?
    ) throws(SandboxError)
        -> [UInt8]
    {
        let wrapping = Self.wrappingKey(device: device, passcodeKey: passcodeKey, for: protection)
        guard let sealed = wrappedKeys[protection.rawValue] else {
            throw Self.damaged("it has no key for '\(protection.rawValue)'")
        }
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            let key = try AES.GCM.open(box, using: wrapping, authenticating: Array(protection.rawValue.utf8))
            guard key.count == 32 else {
                throw Self.damaged("the key of '\(protection.rawValue)' is \(key.count) bytes")
            }
            return Array(key)
        } catch let error as SandboxError {
            throw error
        } catch {
            throw Self.damaged("the wrapped key of '\(protection.rawValue)' fails authentication")
        }
    }

    /// The key a class key is sealed with.
    static func wrappingKey(
        device: SymmetricKey, passcodeKey: SymmetricKey?, for protection: ProtectionClass
    )
        -> SymmetricKey
    {
        let entangled = protection.isPasscodeProtected ? passcodeKey : nil
        var material = device.withUnsafeBytes { Array($0) }
        if let entangled { material += entangled.withUnsafeBytes { Array($0) } }
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: material), salt: Array("sandbox protection key bag".utf8),
            info: Array("class \(protection.rawValue) \(entangled == nil ? "device" : "passcode")".utf8),
            outputByteCount: 32)
    }

    /// The verifier of a passcode key: an HMAC under a key from the device key and the passcode key.
    static func verifier(device: SymmetricKey, passcodeKey: SymmetricKey) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: verifiedMessage, using: verifierKey(device, passcodeKey)))
    }

    /// Whether `passcodeKey` is the one `verifier` was made with, compared in constant time (a
    /// comparison that stops at the first differing byte tells how much of a guess was right).
    static func verifies(_ verifier: Data, device: SymmetricKey, passcodeKey: SymmetricKey) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(
            verifier, authenticating: verifiedMessage, using: verifierKey(device, passcodeKey))
    }

    private static let verifiedMessage = Array("passcode".utf8)

    private static func verifierKey(_ device: SymmetricKey, _ passcodeKey: SymmetricKey) -> SymmetricKey {
        var material = device.withUnsafeBytes { Array($0) }
        material += passcodeKey.withUnsafeBytes { Array($0) }
        return HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: material), info: Array("sandbox passcode verifier".utf8),
            outputByteCount: 32)
    }

    /// How long to wait after `failures` wrong passcodes, as iOS: none for 4, then 1 min, 5 min,
    /// 15 min twice, 1 hour thereafter.
    static func backoff(afterFailures failures: Int) -> TimeInterval {
        switch failures {
        case ..<5: 0
        case 5: 60
        case 6: 300
        case 7, 8: 900
        default: 3600
        }
    }

    static func damaged(_ reason: String) -> SandboxError {
        SandboxError(
            .corrupt,
            "The key bag '\(path)' is damaged: \(reason). It was left as it was; without it protected files cannot be opened. Restore '\(path)' from a backup of this device.",
            path: path.description)
    }
}
