import CSandboxShims
import Crypto
import Foundation
import Glibc
import Sandbox
import SandboxCore

/// Where the class keys of an unlocked device live: the kernel's **user keyring** (keyrings(7)),
/// shared by every process of the user and never written to disk, one `user` key per class named
/// `sandbox-protection:<home digest>:<class>`. A reboot empties it, as it forgets iOS's class keys.
///
/// Where the kernel has no keyring, or refuses it (`keyctl` fails: `ENOSYS`, or `EPERM` under a
/// seccomp filter such as Docker's default one), the keys go to 0600 files in a 0700 folder of this
/// user on a tmpfs: under `$XDG_RUNTIME_DIR`, else `/dev/shm` (memory, emptied at reboot). Setting
/// `SANDBOX_UNLOCKED_KEYS_DIR` to a folder chooses that folder instead of the keyring.
///
/// Each key is kept after the sandbox home's boot session (``/Sandbox/SandboxHome/restart()``
/// starts a new one), and a key kept in another session is forgotten when it is next looked up:
/// so a restart forgets the keys whoever restarts, the CLI or a library user, in any process.
struct UnlockedKeys: Sendable {
    let home: SandboxHome
    /// The prefix of every key of this sandbox home: a digest of its location.
    let prefix: String
    /// `nil`: the keyring; otherwise the fallback folder.
    let fallbackDirectory: String?
    /// Why neither is usable (no keyring, no tmpfs folder); reported when a key is needed, so that
    /// a device without a passcode, which needs none, works anyway.
    let unusable: String?

    init(home: SandboxHome) {
        self.home = home
        let digest = Hex.string(SHA256.hash(data: Array(home.location.utf8)).prefix(12))
        prefix = "sandbox-protection:\(digest):"
        let folderName = "sandbox-protection-\(geteuid())-\(digest)"
        let environment = ProcessInfo.processInfo.environment
        var isDirectory: ObjCBool = false
        if let chosen = environment["SANDBOX_UNLOCKED_KEYS_DIR"], chosen.hasPrefix("/") {
            fallbackDirectory = chosen + "/" + folderName
            unusable = nil
        } else if csb_keyring_probe() == 0 {
            fallbackDirectory = nil
            unusable = nil
        } else if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            fallbackDirectory = runtime + "/" + folderName
            unusable = nil
        } else if FileManager.default.fileExists(atPath: "/dev/shm", isDirectory: &isDirectory), isDirectory.boolValue {
            fallbackDirectory = "/dev/shm/" + folderName
            unusable = nil
        } else {
            fallbackDirectory = nil
            unusable = "keyctl: \(String(cString: strerror(errno)))"
        }
    }

    private func requireUsable() throws(SandboxError) {
        guard let unusable else { return }
        throw SandboxError(
            SandboxError.Code.unsupported,
            "The kernel has no user keyring (\(unusable)), XDG_RUNTIME_DIR is not set and there is no /dev/shm, so an unlocked device's class keys have nowhere to live outside the disk. Set SANDBOX_UNLOCKED_KEYS_DIR (or XDG_RUNTIME_DIR) to a tmpfs folder of this user."
        )
    }

    /// The fallback folder, made if `create`, once it is known to be this user's alone: a folder
    /// someone else made (or replaced by a link) would hand them the keys, or feed us theirs.
    private func privateFolder(_ folder: String, create: Bool) throws(SandboxError) -> Bool {
        if create && mkdir(folder, 0o700) != 0 && errno != EEXIST { throw failure("mkdir", folder) }
        var info = stat()
        guard lstat(folder, &info) == 0 else {
            if errno == ENOENT && !create { return false }
            throw failure("lstat", folder)
        }
        guard info.st_mode & S_IFMT == S_IFDIR, info.st_uid == geteuid(), info.st_mode & 0o077 == 0 else {
            throw SandboxError(
                SandboxError.Code.permissionDenied,
                "The folder '\(folder)' for unlocked class keys is not a 0700 folder of this user; it was not used. Remove it, then unlock again.",
                path: folder)
        }
        return true
    }

    /// Keeps `key` as the unlocked key of `protection`, replacing the one kept.
    func store(_ classKey: [UInt8], for protection: ProtectionClass) throws(SandboxError) {
        try requireUsable()
        let key = try home.bootSession + classKey
        if let folder = fallbackDirectory {
            _ = try privateFolder(folder, create: true)
            let file = folder + "/" + protection.rawValue
            let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw failure("open", file) }
            defer { close(fd) }
            guard write(fd, key, key.count) == key.count else { throw failure("write", file) }
            return
        }
        let added = key.withUnsafeBytes { csb_keyring_add(prefix + protection.rawValue, $0.baseAddress, $0.count) }
        guard added >= 0 else { throw failure("add_key", prefix + protection.rawValue) }
    }

    /// The unlocked key of `protection`, or `nil` when it is not kept (locked, or not unlocked
    /// since the last restart).
    func key(for protection: ProtectionClass) throws(SandboxError) -> [UInt8]? {
        guard let kept = try keptKey(for: protection) else { return nil }
        let session = try home.bootSession
        guard kept.count > session.count, kept.starts(with: session) else {
            try forget(protection)  // kept before the last restart, or by an older version
            return nil
        }
        return Array(kept.dropFirst(session.count))
    }

    /// What is kept for `protection`: the boot session's id, then the class key.
    private func keptKey(for protection: ProtectionClass) throws(SandboxError) -> [UInt8]? {
        try requireUsable()
        var buffer = [UInt8](repeating: 0, count: 64)
        if let folder = fallbackDirectory {
            guard try privateFolder(folder, create: false) else { return nil }
            let file = folder + "/" + protection.rawValue
            let fd = open(file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
            guard fd >= 0 else {
                if errno == ENOENT { return nil }
                throw failure("open", file)
            }
            defer { close(fd) }
            let count = read(fd, &buffer, buffer.count)
            guard count >= 0 else { throw failure("read", file) }
            return Array(buffer[0..<count])
        }
        let id = csb_keyring_search(prefix + protection.rawValue)
        guard id >= 0 else {
            if errno == ENOKEY || errno == EKEYREVOKED || errno == EKEYEXPIRED { return nil }
            throw failure("keyctl search", prefix + protection.rawValue)
        }
        let count = buffer.withUnsafeMutableBytes { csb_keyring_read(id, $0.baseAddress, $0.count) }
        guard count >= 0 else {
            if errno == ENOKEY || errno == EKEYREVOKED { return nil }  // removed meanwhile
            throw failure("keyctl read", prefix + protection.rawValue)
        }
        return Array(buffer[0..<min(count, buffer.count)])
    }

    /// Forgets the unlocked key of `protection`; forgetting one not kept is not an error.
    func forget(_ protection: ProtectionClass) throws(SandboxError) {
        guard unusable == nil else { return }  // nothing can have been kept
        if let folder = fallbackDirectory {
            let file = folder + "/" + protection.rawValue
            guard unlink(file) == 0 || errno == ENOENT else { throw failure("unlink", file) }
            return
        }
        while true {
            let id = csb_keyring_search(prefix + protection.rawValue)
            guard id >= 0 else {
                if errno == ENOKEY || errno == EKEYREVOKED || errno == EKEYEXPIRED { return }
                throw failure("keyctl search", prefix + protection.rawValue)
            }
            guard csb_keyring_unlink(id) == 0 || errno == ENOENT else {
                throw failure("keyctl unlink", prefix + protection.rawValue)
            }
        }
    }

    private func failure(_ call: String, _ name: String) -> SandboxError {
        let reason = String(cString: strerror(errno))
        return SandboxError(
            SandboxError.Code.unknown,
            "The unlocked class key '\(name)' could not be kept or read (\(call): \(reason)); lock and unlock the device again."
        )
    }
}
