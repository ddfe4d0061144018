import Crypto
import Foundation
import SandboxCore
import SandboxStore

/// A `keys/<id>` object: the master key sealed under the key a password derives.
///
/// The sealed payload is the 64-byte master key and, in key files written since config format 2,
/// one more byte, ``promise``: the key's word that the repository's `config` carries an
/// authentication code. No one without the password can add or remove that byte, so a config whose
/// code was stripped (and its version set back to 1) is told apart from one an older version wrote.
struct KeyFile: Codable {
    var derivation: PasswordKeyDerivation
    /// AES-GCM (`nonce ‖ ciphertext ‖ tag`) of the payload.
    var sealedMasterKey: Data

    /// The byte after the master key in a key file that promises an authenticated config.
    static let promise: UInt8 = 2
    /// The largest key file read: a few hundred bytes in practice.
    static let maximumSize = 4096
    /// How many distinct key derivations an open runs at most (restic stops at 20): a hostile
    /// storage full of key files cannot make opening take minutes.
    static let maximumDerivations = 8

    /// A key file sealing `payload` under `key`, which `derivation` gives.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/unknown`` when AES-GCM fails.
    static func sealing(
        _ payload: [UInt8], under key: SymmetricKey, derivation: PasswordKeyDerivation
    )
        throws(SandboxError) -> KeyFile
    {
        do {
            guard let combined = try AES.GCM.seal(payload, using: key).combined else {
                throw SandboxError(.unknown, "AES-GCM gave no combined output.")
            }
            return KeyFile(derivation: derivation, sealedMasterKey: combined)
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(.unknown, "Sealing the master key failed: \(error).")
        }
    }

    /// Stores the key file and returns its name (the SHA-256 of its bytes).
    func store(in storage: any RepositoryStorage) throws(SandboxError) -> ObjectName {
        let bytes = RepositoryJSON.encode(self)
        let name = ObjectName(.key, Hex.string(SHA256.hash(data: bytes)))
        _ = try storage.putIfAbsent(bytes, as: name)
        return name
    }

    /// The payload under `key`, or `nil` when the key does not open it (another password's file).
    func open(with key: SymmetricKey) -> [UInt8]? {
        // Any failure means "not this key": swift-crypto on Linux reports a bad tag as a
        // CoreCrypto error, not `authenticationFailure`.
        guard let box = try? AES.GCM.SealedBox(combined: sealedMasterKey),
            let payload = try? AES.GCM.open(box, using: key)
        else { return nil }
        return Array(payload)
    }
}

/// The master key a password opened, with what the repository's key files say about it.
struct UnlockedKey {
    var master: [UInt8]
    /// The key the password derives under ``derivation``, to seal an upgraded key file with.
    var key: SymmetricKey
    var derivation: PasswordKeyDerivation
    /// Whether a key file of this password promises an authenticated config.
    var promisesAuthenticatedConfig: Bool
    /// This password's key files without the promise (format 1), removed by the upgrade.
    var legacyFiles: [ObjectName]

    /// Finds the key files `password` opens. Key files of one derivation (the same salt) are all
    /// tried with the one derived key, so a promise cannot hide behind an older file. Of several
    /// derivations the password opens, the first whose master key `accepting` takes is chosen, or
    /// else the first: two processes that created the repository at once each stored a key file
    /// before one config won, and the loser's, removed a moment later, seals a master key the
    /// config does not use.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/wrongPassword`` when no key file opens, naming
    ///   the key files refused (unreadable, or a derivation whose cost is out of range) and whether
    ///   the limit of ``KeyFile/maximumDerivations`` stopped the search; the storage's errors.
    static func unlock(
        _ storage: any RepositoryStorage, password: [UInt8], accepting: (UnlockedKey) -> Bool = { _ in true }
    ) throws(SandboxError) -> UnlockedKey {
        var refused: [String] = []
        var firstOpened: UnlockedKey?
        var files: [(name: ObjectName, file: KeyFile)] = []
        for name in try storage.list(.key).sorted(by: { $0.name < $1.name }) {
            guard let size = try storage.size(of: name), size <= KeyFile.maximumSize else {
                refused.append("'\(name)' is larger than a key file (\(KeyFile.maximumSize) bytes at most)")
                continue
            }
            let bytes = try storage.get(name)
            do {
                files.append((name, try RepositoryJSON.decode(KeyFile.self, from: bytes, name: "\(name)")))
            } catch {
                refused.append("'\(name)' cannot be read (\(error.detail))")
            }
        }
        var derivations: [PasswordKeyDerivation] = []
        for entry in files where !derivations.contains(entry.file.derivation) {
            derivations.append(entry.file.derivation)
        }
        var derived = 0
        for derivation in derivations {
            guard derived < KeyFile.maximumDerivations else {
                refused.append(
                    "only \(KeyFile.maximumDerivations) of the \(derivations.count) key derivations were tried")
                break
            }
            let sameSalt = files.filter { $0.file.derivation == derivation }
            let key: SymmetricKey
            do {
                key = try derivation.deriveKey(from: password)
            } catch  where error.code == .corrupt {
                refused.append("'\(sameSalt[0].name)': \(error.message)")
                continue
            }
            derived += 1
            var opened: [(name: ObjectName, payload: [UInt8])] = []
            for entry in sameSalt {
                guard let payload = entry.file.open(with: key) else { continue }
                let legacy = payload.count == 64
                guard legacy || (payload.count == 65 && payload[64] == KeyFile.promise) else { continue }
                opened.append((entry.name, payload))
            }
            // Files of one password made by one open share the master key; a promise wins.
            guard let chosen = opened.first(where: { $0.payload.count == 65 }) ?? opened.first else { continue }
            let master = Array(chosen.payload[0..<64])
            let same = opened.filter { Array($0.payload[0..<64]) == master }
            let unlocked = UnlockedKey(
                master: master, key: key, derivation: derivation,
                promisesAuthenticatedConfig: same.contains { $0.payload.count == 65 },
                legacyFiles: same.filter { $0.payload.count == 64 }.map(\.name))
            if accepting(unlocked) { return unlocked }
            if firstOpened == nil { firstOpened = unlocked }
        }
        if let firstOpened { return firstOpened }
        let detail = refused.isEmpty ? "" : " Refused: \(refused.joined(separator: "; "))."
        throw SandboxError(
            .wrongPassword,
            "The password does not open the repository '\(storage.location)'. Check the password file (a trailing newline is ignored).\(detail)",
            path: storage.location)
    }
}
