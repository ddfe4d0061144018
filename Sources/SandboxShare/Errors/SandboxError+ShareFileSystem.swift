import Sandbox
import SandboxStore

extension SandboxError {
    /// A failure of the confined file system beneath, as the status a WebDAV client expects:
    /// a missing item is 404, a full disk 507, a missing parent or a file in the way 409, an item
    /// reached through a symlink that leads out of Documents 403. The core's error is kept
    /// underneath (``/SandboxCore/SandboxError/underlying``); its message, which names host paths,
    /// is not sent.
    ///
    /// - Parameters:
    ///   - error: the core's error.
    ///   - path: the shared path the request named.
    ///   - action: what was being done, for the message ("store the upload").
    static func fileSystem(
        _ error: SandboxError, path: String, doing action: String, file: String = #fileID, line: Int = #line
    ) -> SandboxError {
        let (code, remedy) = classify(error.code)
        return SandboxError(
            code, "Could not \(action) '\(path)': \(remedy)", path: path, underlying: .error(error), file: file,
            line: line)
    }

    static func classify(_ code: SandboxError.Code) -> (Code, String) {
        switch code {
        case .notFound: (.notFound, "no such item.")
        case .noSpace: (.noSpace, "the disk is full; free some space and retry.")
        case .notADirectory: (.conflict, "a file is in the way of the path.")
        case .alreadyExists: (.methodNotAllowed, "an item with that name already exists.")
        case .isADirectory: (.methodNotAllowed, "it is a collection.")
        case .directoryNotEmpty: (.conflict, "the collection is not empty.")
        case .escapesContainer, .symlinkLoop: (.forbidden, "it leads outside the shared folder.")
        case .permissionDenied, .readOnly: (.forbidden, "the server may not change it.")
        case .notARegularFile: (.forbidden, "it is not a regular file.")
        case .nameTooLong, .invalidPath: (.malformedRequest, "the name is not one this file system can hold.")
        case .fileTooLarge: (.tooLarge, "it is too large.")
        default: (.internalError, "the server's file system failed (\(code)); see the server's log.")
        }
    }
}
