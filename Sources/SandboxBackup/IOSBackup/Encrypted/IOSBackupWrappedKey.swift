import SandboxCore

/// A key wrapped under a protection class's key, as an encrypted iOS backup stores them:
/// `Manifest.plist`'s `ManifestKey` (the key of `Manifest.db`) and each file's `EncryptionKey`
/// (the bytes of the NSData in its MBFile record) — a 4-byte little-endian protection class, then
/// the RFC 3394 wrapped AES-256 key (40 bytes).
public struct IOSBackupWrappedKey: Sendable, Hashable {
    /// The protection class whose key wraps this one.
    public var protectionClass: UInt32
    /// The wrapped key, 40 bytes.
    public var wrappedKey: [UInt8]

    /// Reads a `ManifestKey` or an `EncryptionKey`.
    ///
    /// - Parameters:
    ///   - bytes: the 44 bytes as stored.
    ///   - name: what holds them, for errors (`the ManifestKey in '…/Manifest.plist'`, `the
    ///     EncryptionKey of file 3f…`).
    ///   - path: the file to name in errors.
    /// - Throws: ``SandboxCore/SandboxError/Code/iosBackupDamaged`` when `bytes` is not 44 bytes.
    public init(persistentKey bytes: [UInt8], name: String, path: String) throws(SandboxError) {
        guard bytes.count == 44 else {
            throw SandboxError(
                .iosBackupDamaged,
                "\(name) is \(bytes.count) bytes, not the 44 of a protection class and a wrapped AES-256 key; the backup is damaged or was not written by iOS.",
                path: path)
        }
        protectionClass = bytes[0..<4].reversed().reduce(0) { $0 << 8 | UInt32($1) }
        wrappedKey = Array(bytes[4...])
    }
}
