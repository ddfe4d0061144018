import Sandbox
import SandboxStore

extension ShareError {
    /// A failure of Data Protection (a protected file read, sealed or moved) as the status a
    /// client expects: ``ShareError/Code/forbidden`` with `lockedMessage` while the file's class
    /// key is locked — as an upload into a protected folder is refused, and because 423 Locked
    /// means a WebDAV lock, which a client would try to discover or wait out; the file system's
    /// failure as ``fileSystem(_:path:doing:file:line:)`` maps it; 500 for a damaged protected file.
    static func dataProtection(
        _ error: StoreError, path: SharePath, doing action: String, lockedMessage: String
    ) -> ShareError {
        if error.code == .protectedDataUnavailable {
            return ShareError(.forbidden, lockedMessage, path: path.description, cause: error)
        }
        if let underlying = error.fileSystemError { return .fileSystem(underlying, path: path, doing: action) }
        return ShareError(
            .internalError,
            "Could not \(action) '\(path)': its protection failed (\(error.code)); see the server's log.",
            path: path.description, cause: error)
    }
}
