import Crypto
import Sandbox
import SandboxBackup

extension FuzzTarget {
    /// `IOSBackupKeyBag(parsing:path:)`: an encrypted iOS backup's `BackupKeyBag` (issue 29), then
    /// ``IOSBackupKeyBag/unlock(passwordKey:folder:)`` with a fixed key (the PBKDF2 rounds a keybag
    /// asks for are bounded, but even the cap is seconds an input). Refusals `ios-backup-damaged`
    /// only, naming the path; a keybag that reads keeps every bound (size, classes listed once and at
    /// most 32, 40-byte keys, iteration counts and salts within their caps); the unlock unwraps or
    /// refuses with `wrong-password` or `ios-backup-damaged`, and what it unwraps is the classes
    /// wrapped with the password.
    static let iosKeyBag = FuzzTarget(
        name: "ios-keybag",
        run: { bytes in
            let path = "/backup/Manifest.plist"
            let keyBag: IOSBackupKeyBag
            do throws(SandboxError) {
                keyBag = try IOSBackupKeyBag(parsing: bytes, path: path)
            } catch {
                expectRefusal(
                    code: error.code.rawValue, among: ["ios-backup-damaged"], message: error.message,
                    for: "IOSBackupKeyBag")
                invariant(error.message.contains(path), "the refusal does not name '\(path)': \(error.message)")
                return
            }
            invariant(bytes.count <= IOSBackupKeyBag.maximumSize, "a keybag past the size limit was read")
            let classes = keyBag.classes.map(\.protectionClass)
            invariant(!classes.isEmpty && classes.count <= IOSBackupKeyBag.maximumClasses, "\(classes.count) classes")
            invariant(Set(classes).count == classes.count, "a class listed twice: \(classes)")
            invariant(keyBag.classes.allSatisfy { $0.wrappedKey.map { $0.count == 40 } ?? true }, "a key not 40 bytes")
            invariant(
                (1...IOSBackupKeyBag.maximumIterations).contains(keyBag.iterations)
                    && (1...IOSBackupKeyBag.maximumDataProtectionIterations).contains(keyBag.dataProtectionIterations),
                "iteration counts past the caps: \(keyBag.iterations), \(keyBag.dataProtectionIterations)")
            invariant(
                (1...IOSBackupKeyBag.maximumSaltSize).contains(keyBag.salt.count)
                    && (1...IOSBackupKeyBag.maximumSaltSize).contains(keyBag.dataProtectionSalt.count),
                "a salt out of bounds")
            do throws(SandboxError) {
                let keys = try keyBag.unlock(passwordKey: passwordKey, folder: "/backup")
                let wrapped = keyBag.classes.filter { $0.wrap & 2 != 0 && $0.wrappedKey != nil }
                invariant(keys.protectionClasses == wrapped.map(\.protectionClass).sorted(), "unwrapped other classes")
            } catch {
                expectRefusal(
                    code: error.code.rawValue, among: ["wrong-password", "ios-backup-damaged"], message: error.message,
                    for: "IOSBackupKeyBag.unlock")
            }
        },
        seeds: {
            // A keybag as iOS lays it out, its class keys wrapped under the fixed key (so the
            // fuzzer starts past the unwrap), and one whose keys do not unwrap.
            func item(_ tag: String, _ value: [UInt8]) -> [UInt8] {
                Array(tag.utf8) + withUnsafeBytes(of: UInt32(value.count).bigEndian, Array.init) + value
            }
            func item(_ tag: String, _ value: UInt32) -> [UInt8] {
                item(tag, withUnsafeBytes(of: value.bigEndian, Array.init))
            }
            func keyBag(wrapping: Bool) -> [UInt8] {
                var bytes =
                    item("VERS", 4) + item("TYPE", 1) + item("UUID", [UInt8](repeating: 1, count: 16))
                    + item("HMCK", [UInt8](repeating: 6, count: 40)) + item("WRAP", 0)
                    + item("SALT", [UInt8](repeating: 2, count: 20)) + item("ITER", 10_000) + item("DPWT", 1)
                    + item("DPIC", 10_000_000) + item("DPSL", [UInt8](repeating: 3, count: 20))
                for number in UInt32(1)...11 {
                    var wrapped = [UInt8](repeating: 5, count: 40)
                    if wrapping, let made = try? AES.KeyWrap.wrap(SymmetricKey(size: .bits256), using: passwordKey) {
                        wrapped = Array(made)
                    }
                    bytes +=
                        item("UUID", [UInt8](repeating: UInt8(number), count: 16)) + item("CLAS", number)
                        + item("WRAP", 2) + item("KTYP", 0) + item("WPKY", wrapped)
                }
                return bytes
            }
            return ["ios-10.2.keybag": keyBag(wrapping: true), "not-unwrapping.keybag": keyBag(wrapping: false)]
        })

    /// The fixed password key the target unlocks with.
    private static let passwordKey = SymmetricKey(data: [UInt8](repeating: 0x42, count: 32))
}
