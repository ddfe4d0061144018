import Crypto
import Sandbox
import SystemPackage

/// The device's root secret: 32 random bytes in `Device/device.key` (mode 0600, in a 0700
/// folder), never copied anywhere. Every keychain key is derived from it, so a keychain file taken
/// to another device (another sandbox home) cannot be opened there.
///
/// **When it is made.** When the device's keychain is first set up: by the first write of a
/// keychain item on a device that has no keychain at all. A read never makes it (reading a
/// keychain that has no file needs no key). A missing key while any keychain exists is refused
/// with ``SandboxCore/SandboxError/Code/deviceKeyMissing``: a new key would silently orphan every item.
enum DeviceKey {
    static let size = 32
    static let path = ContainerPath(constant: "Device/device.key")

    /// The device key of `home`, or `nil` when the device has none.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/corrupt`` when the key file is not
    ///   32 bytes (it is left as it was: replacing it would lose every keychain), and the core's codes.
    static func existing(in home: SandboxHome) throws(SandboxError) -> SymmetricKey? {
        let bytes: [UInt8]
        do {
            bytes = try home.root.readContents(of: path, maximumSize: 4096)
        } catch  where error.code == .notFound {
            return nil
        } catch {
            throw error
        }
        guard bytes.count == size else {
            throw SandboxError(
                .corrupt,
                "The device key '\(path)' is \(bytes.count) bytes, not \(size): it is damaged. It was left as it was; without it the device's keychains cannot be opened.",
                path: path.description
            )
        }
        return SymmetricKey(data: bytes)
    }

    /// The device key of `home`, made now if the device has no keychain yet.
    ///
    /// Two processes that set up the device at once agree on one key: it is created exclusively,
    /// and the loser reads the winner's.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/deviceKeyMissing`` when the key is missing but keychains exist
    ///   (the key is not made), and the errors of ``existing(in:)``.
    static func settingUp(_ home: SandboxHome) throws(SandboxError) -> SymmetricKey {
        if let key = try existing(in: home) { return key }
        if let keychain = try anyKeychain(in: home) {
            // A keychain appearing now may be another process's first one, made with a key it
            // has just created: read the key again before refusing.
            if let key = try existing(in: home) { return key }
            throw missing(for: keychain)
        }
        let key = SymmetricKey(size: .bits256)
        let bytes = key.withUnsafeBytes { Array($0) }
        do throws(SandboxError) {
            try home.root.setPermissions([.ownerReadWriteExecute], at: path.parent)
            try home.root.writeContents(bytes, to: path, options: [.atomic, .durable, .withoutOverwriting])
            try home.root.setPermissions([.ownerReadWrite], at: path)
            return key
        } catch  where error.code == .alreadyExists {
            if let key = try existing(in: home) { return key }  // another process made it first
            throw error
        } catch {
            throw error
        }
    }

    /// The error for a keychain at `keychain` whose device key is gone.
    static func missing(for keychain: ContainerPath) -> SandboxError {
        SandboxError(
            .deviceKeyMissing,
            "The device key '\(path)' is missing, so the keychain '\(keychain)' cannot be opened; no new key is made, as it would orphan every item. Restore '\(path)' from a backup of this device, or uninstall the apps whose keychains it sealed to start without their items.",
            path: path.description
        )
    }

    /// The path of some keychain file on the device, or `nil` when there is none.
    private static func anyKeychain(in home: SandboxHome) throws(SandboxError) -> ContainerPath? {
        let apps = try entries(of: SandboxHome.appDeviceDataRoot, in: home)
        for app in apps where app.type == .directory {
            let file = try app.path.appending(KeychainLocation.fileName)
            if try home.root.attributes(at: file, followingSymlink: false) != nil {
                return file
            }
        }
        return try entries(of: KeychainLocation.legacyDirectory, in: home).first { $0.name.hasSuffix(".keychain") }?
            .path
    }

    private static func entries(
        of directory: ContainerPath, in home: SandboxHome
    ) throws(SandboxError) -> [DirectoryEntry] {
        do {
            return try home.root.contentsOfDirectory(at: directory)
        } catch  where error.code == .notFound {
            return []
        } catch {
            throw error
        }
    }
}
