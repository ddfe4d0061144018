import SandboxCore

extension SandboxHome {
    /// The directories of a home made before homes were private that are tightened at each open:
    /// the home itself, `Containers/` and `Device/`. Everything else lies beneath them, so no other
    /// user reaches it whatever its own mode; checking them costs 3 `statx` calls, not a walk of
    /// every container.
    static let privateDirectories: [ContainerPath] = [.root, SandboxHome.containers, SandboxHome.device]

    /// Makes ``privateDirectories`` private to the owner (`0700`) where a group or other bit is
    /// set, as an iOS container is private to its app.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/permissionDenied`` when the home is not the
    ///   user's own (the message names the directory and the `chmod` to run), and resolution errors.
    func makePrivate() throws(SandboxError) {
        for path in Self.privateDirectories {
            do throws(SandboxError) {
                try root.makeDirectoryPrivate(at: path)
            } catch  where error.code == .permissionDenied {
                let shown = root.displayPath(of: path)
                throw SandboxError(
                    .permissionDenied,
                    "The sandbox home's '\(shown)' is readable by other users and could not be made private: it is not yours. Run `chmod 700 '\(shown)'` as its owner, or use another home (SANDBOX_HOME).",
                    path: shown, cause: error.cause)
            }
        }
    }
}
