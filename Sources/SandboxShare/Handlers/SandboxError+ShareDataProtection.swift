import Sandbox
import SandboxStore

extension SandboxError {
    /// A failure of Data Protection (a protected file read, sealed or moved) as the status a
    /// client expects: ``SandboxCore/SandboxError/Code/forbidden`` with `lockedMessage` while the file's class
    /// key is locked — as an upload into a protected folder is refused, and because 423 Locked
    /// means a WebDAV lock, which a client would try to discover or wait out; the file system's
    /// failure as ``fileSystem(_:path:doing:file:line:)`` maps it; 500 for a damaged protected file; a
    /// failure a handler already answered (a share's code) unchanged.
    static func dataProtection(
        _ error: SandboxError, path: SharePath, doing action: String, lockedMessage: String
    ) -> SandboxError {
        if error.code.isShareAnswer { return error }
        if error.code == .protectedDataUnavailable {
            return SandboxError(.forbidden, lockedMessage, path: path.description, underlying: .error(error))
        }
        if error.cause != nil || classify(error.code).0 != .internalError {
            return .fileSystem(error, path: path, doing: action)
        }
        return SandboxError(
            .internalError,
            "Could not \(action) '\(path)': its protection failed (\(error.code)); see the server's log.",
            path: path.description, underlying: .error(error))
    }
}
