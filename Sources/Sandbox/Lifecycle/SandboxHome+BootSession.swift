import SandboxCore

extension SandboxHome {
    /// Where the current boot session's id is kept.
    static let bootSessionPath = ContainerPath(constant: "Device/boot-session")

    /// The id of the simulated device's current boot: 16 bytes that ``restart()`` replaces (16 zero
    /// bytes before the first restart). What must not outlive a restart but lives outside this
    /// process (Data Protection's unlocked class keys, in the kernel's keyring) is tagged with it,
    /// and a tag of another boot means "forgotten": so every restart forgets it, whichever process
    /// or module restarts, without this module knowing who keeps what.
    ///
    /// - Throws: the file-system errors of reading `Device/boot-session`.
    package var bootSession: [UInt8] {
        get throws(SandboxError) {
            do {
                let bytes = try root.readContents(of: Self.bootSessionPath, maximumSize: 64)
                return bytes.count == 16 ? bytes : [UInt8](repeating: 0, count: 16)
            } catch  where error.code == .notFound {
                return [UInt8](repeating: 0, count: 16)
            }
        }
    }

    /// Starts a new boot session: a new random ``bootSession``.
    func beginBootSession() throws(SandboxError) {
        var generator = SystemRandomNumberGenerator()
        let id = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        try root.writeContents(id, to: Self.bootSessionPath, options: [.atomic, .durable])
    }
}
