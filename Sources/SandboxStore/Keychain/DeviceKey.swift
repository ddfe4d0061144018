import Crypto
import Sandbox
import SystemPackage

/// The device's root secret: 32 random bytes in `Device/device.key` (mode 0600, in a 0700
/// folder), made on first use and never copied anywhere. Every keychain key is derived from it,
/// so a keychain file taken to another device (another sandbox home) cannot be opened there.
enum DeviceKey {
    static let size = 32

    /// The device key of `home`, created if the device has none yet.
    ///
    /// - Throws: ``StoreError`` with ``StoreError/Code/corrupt`` when the key file is not
    ///   32 bytes (it is left as it was: replacing it would lose every keychain), and the core's codes.
    static func load(from home: SandboxHome) throws(StoreError) -> SymmetricKey {
        let root = home.root
        let path = SandboxHome.deviceKeyPath
        do throws(StoreError) {
            return try read(root, path)
        } catch where error.code == .notFound {
            // First use: made atomically and exclusively, so two processes agree on one key.
            let key = SymmetricKey(size: .bits256)
            let bytes = key.withUnsafeBytes { Array($0) }
            do throws(SandboxError) {
                try root.setPermissions([.ownerReadWriteExecute], at: path.parent)
                try root.writeContents(bytes, to: path, options: [.atomic, .durable, .withoutOverwriting])
                try root.setPermissions([.ownerReadWrite], at: path)
                return key
            } catch where error.code == .alreadyExists {
                return try read(root, path)  // another process made it first
            } catch {
                throw StoreError(error)
            }
        }
    }

    private static func read(_ root: ConfinedRoot, _ path: ContainerPath) throws(StoreError) -> SymmetricKey {
        let bytes = try fileSystem { () throws(SandboxError) in try root.readContents(of: path, maximumSize: 4096) }
        guard bytes.count == size else {
            throw StoreError(
                .corrupt,
                "The device key '\(path)' is \(bytes.count) bytes, not \(size): it is damaged. It was left as it was; without it the device's keychains cannot be opened.",
                path: path.description
            )
        }
        return SymmetricKey(data: bytes)
    }
}
