/// The one error type the core throws.
///
/// Every failure carries a ``code`` to branch on, a ``message`` written for a person (it names the
/// path and says what to do), the system call and `errno` behind it when there is one, and the
/// source location that raised it.
public struct SandboxError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a value to match on. New codes may be added, so switch with a default.
    public var code: Code
    /// A sentence for a person: what failed, on which path, and the remedy.
    public var message: String
    /// The container-relative path involved, if any.
    public var path: String?
    /// The system call and error number underneath, if any.
    public var cause: SystemCallFailure?
    /// Where the error was raised.
    public var location: SourceLocation

    public init(
        code: Code,
        message: String,
        path: String? = nil,
        cause: SystemCallFailure? = nil,
        location: SourceLocation
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
        self.location = location
    }

    /// An error raised by a library layer above the core, located at the caller.
    public init(
        _ code: Code,
        _ message: String,
        path: String? = nil,
        cause: SystemCallFailure? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.init(code: code, message: message, path: path, cause: cause, location: SourceLocation(file: file, line: line))
    }

    /// The message followed by the code, e.g. `'../x' escapes the container… [escapes-container]`.
    public var description: String {
        var text = message
        if let cause { text += " (\(cause))" }
        return text + " [\(code)]"
    }
}

extension SandboxError {
    /// A failure's kind. A struct over a private enum so that codes can be added without breaking
    /// exhaustive switches in client code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        fileprivate enum Kind: String, Sendable {
            case escapesContainer = "escapes-container"
            case invalidPath = "invalid-path"
            case invalidAppIdentifier = "invalid-app-identifier"
            case notFound = "not-found"
            case alreadyExists = "already-exists"
            case notADirectory = "not-a-directory"
            case isADirectory = "is-a-directory"
            case notARegularFile = "not-a-regular-file"
            case directoryNotEmpty = "directory-not-empty"
            case permissionDenied = "permission-denied"
            case readOnly = "read-only"
            case noSpace = "no-space"
            case tooManyOpenFiles = "too-many-open-files"
            case symlinkLoop = "symlink-loop"
            case nameTooLong = "name-too-long"
            case crossDevice = "cross-device"
            case unsupported = "unsupported"
            case fileTooLarge = "file-too-large"
            case interrupted = "interrupted"
            case io = "io"
            case corrupt = "corrupt"
            case invalidArgument = "invalid-argument"
            case closed = "closed"
            case signatureInvalid = "signature-invalid"
            case untrustedKey = "untrusted-key"
            case bundleModified = "bundle-modified"
            case unknown = "unknown"
        }

        fileprivate let kind: Kind
        fileprivate init(_ kind: Kind) { self.kind = kind }

        /// The stable, kebab-case spelling used in messages and JSON output.
        public var description: String { kind.rawValue }

        /// The path leads outside the container: `..` above its root, an absolute path, a symlink
        /// that points out, a magic link, or a NUL byte.
        public static let escapesContainer = Code(.escapesContainer)
        /// The path is not valid: empty, too long, or names no item where one is needed.
        public static let invalidPath = Code(.invalidPath)
        /// An app identifier is not reverse-DNS.
        public static let invalidAppIdentifier = Code(.invalidAppIdentifier)
        /// The item does not exist.
        public static let notFound = Code(.notFound)
        /// An item already exists where a new one was to be made.
        public static let alreadyExists = Code(.alreadyExists)
        /// A directory was needed and something else was found.
        public static let notADirectory = Code(.notADirectory)
        /// A file was needed and a directory was found.
        public static let isADirectory = Code(.isADirectory)
        /// Data I/O was asked of a FIFO, socket, device or symlink.
        public static let notARegularFile = Code(.notARegularFile)
        /// A directory was to be removed without `recursively` and is not empty.
        public static let directoryNotEmpty = Code(.directoryNotEmpty)
        /// The operating system refused access.
        public static let permissionDenied = Code(.permissionDenied)
        /// The item or file system is read-only, or the container's policy forbids writing there.
        public static let readOnly = Code(.readOnly)
        /// The file system is full or a quota was reached.
        public static let noSpace = Code(.noSpace)
        /// The process or system ran out of file descriptors.
        public static let tooManyOpenFiles = Code(.tooManyOpenFiles)
        /// Too many symbolic links were met while resolving a path.
        public static let symlinkLoop = Code(.symlinkLoop)
        /// A name or path is longer than the file system allows.
        public static let nameTooLong = Code(.nameTooLong)
        /// The operation cannot cross file systems.
        public static let crossDevice = Code(.crossDevice)
        /// The file system or kernel does not support the operation.
        public static let unsupported = Code(.unsupported)
        /// A file is larger than the limit the caller gave.
        public static let fileTooLarge = Code(.fileTooLarge)
        /// The operation was interrupted or cancelled.
        public static let interrupted = Code(.interrupted)
        /// A low-level input/output error.
        public static let io = Code(.io)
        /// Stored data is damaged or not in the expected format.
        public static let corrupt = Code(.corrupt)
        /// An argument is out of range or malformed.
        public static let invalidArgument = Code(.invalidArgument)
        /// A handle, stream or channel was used after it was closed.
        public static let closed = Code(.closed)
        /// A signature does not verify, is missing, or is not in the expected format.
        public static let signatureInvalid = Code(.signatureInvalid)
        /// A signature verifies, but with a key this device does not trust.
        public static let untrustedKey = Code(.untrustedKey)
        /// A signed app bundle's files differ from its manifest: changed, added or removed.
        public static let bundleModified = Code(.bundleModified)
        /// Anything not covered above; the ``SandboxError/cause`` tells more.
        public static let unknown = Code(.unknown)
    }

    /// A source location, captured with `#fileID` and `#line`.
    public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
        public var file: String
        public var line: Int
        public init(file: String, line: Int) {
            self.file = file
            self.line = line
        }
        public static func here(_ file: String = #fileID, _ line: Int = #line) -> SourceLocation {
            SourceLocation(file: file, line: line)
        }
        public var description: String { "\(file):\(line)" }
    }
}
