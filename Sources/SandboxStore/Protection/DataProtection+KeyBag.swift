import Crypto
import Foundation
import Sandbox
import SystemPackage

extension DataProtection {
    /// The key bag, or `nil` when the device has none yet.
    func loadBag() throws(SandboxError) -> ProtectionKeyBag? {
        let bytes: [UInt8]
        do {
            bytes = try home.root.readContents(of: ProtectionKeyBag.path, maximumSize: 1 << 20)
        } catch  where error.code == .notFound {
            return nil
        } catch {
            throw error
        }
        do {
            let bag = try JSONDecoder().decode(ProtectionKeyBag.self, from: Data(bytes))
            guard bag.version == 1 else { throw ProtectionKeyBag.damaged("it has version \(bag.version)") }
            return bag
        } catch let error as SandboxError {
            throw error
        } catch {
            throw ProtectionKeyBag.damaged("it is not valid JSON (\(error))")
        }
    }

    func save(_ bag: ProtectionKeyBag) throws(SandboxError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(bag))
        } catch {
            throw SandboxError(.encodingFailed, "The key bag could not be encoded: \(error).")
        }
        do {
            try home.root.writeContents(bytes, to: ProtectionKeyBag.path, options: [.atomic, .durable])
            try home.root.setPermissions([.ownerReadWrite], at: ProtectionKeyBag.path)
        }
    }

    func deviceKey() throws(SandboxError) -> SymmetricKey {
        guard let key = try DeviceKey.existing(in: home) else { throw DeviceKey.missing(for: ProtectionKeyBag.path) }
        return key
    }

    /// The key bag, made (with the device key, if that is new too) when the device has none.
    func keyBagCreatingIfNeeded() throws(SandboxError) -> ProtectionKeyBag {
        if let bag = try loadBag() { return bag }
        return try withKeyBag { bag, _ throws(SandboxError) in bag }
    }

    /// Runs `body` on the key bag under the key bag's lock, creating the bag first if needed;
    /// `body` saves what it changes.
    func withKeyBag<T>(
        _ body: (inout ProtectionKeyBag, SymmetricKey) throws(SandboxError) -> T
    ) throws(SandboxError) -> T {
        let device = try DeviceKey.settingUp(home)
        let lock = try FileLock(root: home.root, path: ProtectionKeyBag.lockPath)
        return try lock.withLock(exclusive: true) { () throws(SandboxError) -> T in
            var bag: ProtectionKeyBag
            if let existing = try loadBag() {
                bag = existing
            } else {
                bag = try ProtectionKeyBag.generate(device: device)
                try save(bag)
            }
            return try body(&bag, device)
        }
    }

    /// The passcode key of `passcode` once the verifier accepts it; a failure is counted and saved.
    func verifiedPasscodeKey(
        _ passcode: [UInt8], bag: inout ProtectionKeyBag, device: SymmetricKey
    ) throws(SandboxError)
        -> SymmetricKey
    {
        guard let record = bag.passcode else { throw ProtectionKeyBag.damaged("it has no passcode record") }
        if let last = bag.lastFailure {
            let wait = last.addingTimeInterval(ProtectionKeyBag.backoff(afterFailures: bag.failedAttempts))
                .timeIntervalSinceNow
            if wait > 0 {
                throw SandboxError(
                    .passcodeBackoff,
                    "\(bag.failedAttempts) wrong passcodes: try again in \(Int(wait.rounded(.up))) s. The passcode was not tried."
                )
            }
        }
        let key = try derive(passcode, with: record.derivation)
        guard ProtectionKeyBag.verifies(record.verifier, device: device, passcodeKey: key) else {
            bag.failedAttempts += 1
            bag.lastFailure = Date()
            try save(bag)
            let wait = Int(ProtectionKeyBag.backoff(afterFailures: bag.failedAttempts))
            throw SandboxError(
                .passcodeIncorrect,
                "The passcode is incorrect (\(bag.failedAttempts) failed \(bag.failedAttempts == 1 ? "try" : "tries") in a row)"
                    + (wait > 0 ? "; the next try is refused for \(wait) s." : ".")
            )
        }
        if bag.failedAttempts != 0 {
            bag.failedAttempts = 0
            bag.lastFailure = nil
            try save(bag)
        }
        return key
    }

    func derive(_ passcode: [UInt8], with derivation: PasswordKeyDerivation) throws(SandboxError) -> SymmetricKey {
        do {
            return try derivation.deriveKey(from: passcode)
        } catch {
            throw error
        }
    }
}
