import Sandbox
import SystemPackage

/// The generation of an app's keychain that this device last wrote, kept beside it in
/// `keychain.generation`: 8 bytes of magic (`SBKCGEN1`) and the generation, big-endian.
///
/// Each write of the keychain raises the generation, seals it into the file (under the file's
/// HMAC) and then records it here. A file whose sealed generation is lower than the record is an
/// older copy — a rollback — and is refused. The file is written first: a crash between the two
/// leaves a file one generation ahead of the record, which is accepted and recorded by the next
/// write.
///
/// What it does not cover: someone who can write `Device/` can roll back the file and this record
/// together (or delete both). The record guards against an old copy of the keychain file alone
/// (restored from a backup, copied back), not against an attacker with the device's own files.
enum KeychainGenerationRecord {
    private static let magic = Array("SBKCGEN1".utf8)

    /// The recorded generation; 0 when there is none (no write since format version 2).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged record (left as it was), and the core's codes.
    static func read(at path: ContainerPath, in root: ConfinedRoot) throws(SandboxError) -> UInt64 {
        let bytes: [UInt8]
        do {
            bytes = try root.readContents(of: path, maximumSize: 4096)
        } catch  where error.code == .notFound {
            return 0
        } catch {
            throw error
        }
        guard bytes.count == 16, bytes.starts(with: magic) else {
            throw SandboxError(
                .corrupt,
                "The keychain's generation record '\(path)' is damaged (\(bytes.count) bytes). It was left as it was; the keychain cannot be checked against rollback until it is restored, or removed together with the keychain.",
                path: path.description
            )
        }
        return bytes[8...].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// Records `generation`, atomically and durably.
    static func write(_ generation: UInt64, at path: ContainerPath, in root: ConfinedRoot) throws(SandboxError) {
        let bytes = magic + (0..<8).map { UInt8(truncatingIfNeeded: generation >> (56 - 8 * UInt64($0))) }
        do {
            try root.writeContents(bytes, to: path, options: [.atomic, .durable])
            try root.setPermissions([.ownerReadWrite], at: path)
        }
    }
}
