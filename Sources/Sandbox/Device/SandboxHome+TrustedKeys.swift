import SandboxCore

extension SandboxHome {
    /// Where the device keeps the public keys it accepts bundles from, one `<keyID>.pub` each.
    static let trustedKeys = ContainerPath(constant: "Device/TrustedKeys")

    /// Trusts `key`: bundles it signed may be installed and opened on this device. Trusting a key
    /// twice is harmless.
    ///
    /// - Returns: whether the key was newly trusted.
    /// - Throws: file-system errors writing `Device/TrustedKeys/<keyID>.pub`.
    @discardableResult
    public func trust(_ key: SigningPublicKey) throws(SandboxError) -> Bool {
        let path = Self.trustedKeys.appendingName(key.keyID + ".pub")
        try root.createDirectory(at: Self.trustedKeys, withIntermediateDirectories: true)
        if try root.fileExists(at: path) { return false }
        try root.writeContents(Array(key.fileContents.utf8), to: path, options: [.atomic, .durable])
        return true
    }

    /// Stops trusting `key`. Apps it signed then refuse to open until updated with a bundle signed
    /// by a trusted key.
    ///
    /// - Returns: whether the key had been trusted.
    @discardableResult
    public func distrust(_ key: SigningPublicKey) throws(SandboxError) -> Bool {
        try root.removeItem(at: Self.trustedKeys.appendingName(key.keyID + ".pub")) > 0
    }

    /// The keys this device trusts.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` naming a file in `Device/TrustedKeys`
    ///   that holds no public key (remove it, or trust the key again).
    public func trustedKeys() throws(SandboxError) -> Set<SigningPublicKey> {
        guard try root.directoryExists(at: Self.trustedKeys) else { return [] }
        var keys = Set<SigningPublicKey>()
        for entry in try root.contentsOfDirectory(at: Self.trustedKeys)
        where entry.name.hasSuffix(".pub") && !entry.name.hasPrefix(".") {
            let bytes = try root.readContents(of: entry.path, maximumSize: 4096)
            do throws(SandboxError) {
                keys.insert(
                    try SigningPublicKey(
                        fileContents: String(decoding: bytes, as: UTF8.self), source: root.displayPath(of: entry.path)))
            } catch {
                throw SandboxError(
                    .corrupt,
                    "'\(root.displayPath(of: entry.path))' holds no public key (\(error.message)). Remove it, then trust the key again.",
                    path: entry.path.description)
            }
        }
        return keys
    }
}
