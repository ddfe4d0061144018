/// The one error type of the Sandbox libraries: the core and every module above it throw it.
///
/// Every failure carries a ``code`` to branch on, a ``message`` written for a person (it names the
/// path and says what to do), the system call and `errno` behind it when there is one (``cause``),
/// what else lay beneath it (``underlying``: a file-system failure beneath a store's, a decoder's or
/// SQLite's words, a network library's error), and the source location that raised it. A module
/// adds its own codes to ``Code`` and its own typed values to ``context`` (a download's resume data,
/// a share's `Retry-After`), so callers handle one type whatever layer threw.
public struct SandboxError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a value to match on. New codes may be added, so switch with a default.
    public var code: Code
    /// A sentence for a person: what failed, on which path, and the remedy.
    public var message: String
    /// The container-relative path involved, if any.
    public var path: String?
    /// The system call and error number underneath, if any.
    public var cause: SystemCallFailure?
    /// What else lay beneath, when it was not (only) a system call: another ``SandboxError``, a
    /// detail text, or a foreign error.
    public var underlying: Underlying?
    /// Where the error was raised.
    public var location: SourceLocation
    /// Typed values a module attaches (``SandboxErrorKey``), read through the module's properties.
    public var context: Context

    /// An error with every field given, for code that rebuilds one (a decoder, a test); throwing code
    /// uses the initializers that capture the caller's location.
    public init(
        code: Code,
        message: String,
        path: String? = nil,
        cause: SystemCallFailure? = nil,
        underlying: Underlying? = nil,
        location: SourceLocation,
        context: Context = Context()
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
        self.underlying = underlying
        self.location = location
        self.context = context
    }

    /// An error of `code`, located at the caller.
    ///
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - message: a sentence for a person that names the path and the remedy.
    ///   - path: the path involved, if any.
    ///   - cause: the system call and `errno` underneath, if any.
    ///   - underlying: what else lay beneath, if anything.
    ///   - file: the raising file; the caller's by default.
    ///   - line: the raising line; the caller's by default.
    public init(
        _ code: Code,
        _ message: String,
        path: String? = nil,
        cause: SystemCallFailure? = nil,
        underlying: Underlying? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.init(
            code: code, message: message, path: path, cause: cause, underlying: underlying,
            location: SourceLocation(file: file, line: line))
    }

    /// The message, what lay underneath when it adds something, and the code, e.g.
    /// `'../x' escapes the container… [escapes-container]`.
    public var description: String {
        var text = message
        if let detail = cause.map(String.init(describing:)) ?? underlying?.detail { text += " (\(detail))" }
        return text + " [\(code)]"
    }
}

extension SandboxError {
    /// A failure's kind, spelled in stable kebab-case (`escapes-container`). A struct rather than
    /// an enum, so that codes can be added — by the core, and by the modules of this package above
    /// it for their own failures (the `Sandbox` module's bundle codes) — without breaking client
    /// code: switch with a default.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The stable spelling used in messages and JSON output.
        public let rawValue: String

        /// A code of this package's modules. Spellings are kebab-case and unique across layers.
        package init(_ rawValue: String) { self.rawValue = rawValue }

        /// The stable, kebab-case spelling used in messages and JSON output.
        public var description: String { rawValue }

        /// The path leads outside the container: `..` above its root, an absolute path, a symlink
        /// that points out, a magic link, or a NUL byte.
        public static let escapesContainer = Code("escapes-container")
        /// The path is not valid: empty, too long, or names no item where one is needed.
        public static let invalidPath = Code("invalid-path")
        /// The item does not exist.
        public static let notFound = Code("not-found")
        /// An item already exists where a new one was to be made.
        public static let alreadyExists = Code("already-exists")
        /// A directory was needed and something else was found.
        public static let notADirectory = Code("not-a-directory")
        /// A file was needed and a directory was found.
        public static let isADirectory = Code("is-a-directory")
        /// Data I/O was asked of a FIFO, socket, device or symlink.
        public static let notARegularFile = Code("not-a-regular-file")
        /// A directory was to be removed without `recursively` and is not empty.
        public static let directoryNotEmpty = Code("directory-not-empty")
        /// The operating system refused access.
        public static let permissionDenied = Code("permission-denied")
        /// The item or file system is read-only, or the container's policy forbids writing there.
        public static let readOnly = Code("read-only")
        /// The file system is full or a quota was reached.
        public static let noSpace = Code("no-space")
        /// The process or system ran out of file descriptors.
        public static let tooManyOpenFiles = Code("too-many-open-files")
        /// Too many symbolic links were met while resolving a path.
        public static let symlinkLoop = Code("symlink-loop")
        /// A name or path is longer than the file system allows.
        public static let nameTooLong = Code("name-too-long")
        /// The operation cannot cross file systems.
        public static let crossDevice = Code("cross-device")
        /// The file system or kernel does not support the operation.
        public static let unsupported = Code("unsupported")
        /// A file is larger than the limit the caller gave.
        public static let fileTooLarge = Code("file-too-large")
        /// The operation was interrupted or cancelled.
        public static let interrupted = Code("interrupted")
        /// A low-level input/output error.
        public static let io = Code("io")
        /// Stored data is damaged or not in the expected format.
        public static let corrupt = Code("corrupt")
        /// An argument is out of range or malformed.
        public static let invalidArgument = Code("invalid-argument")
        /// A handle, stream or channel was used after it was closed.
        public static let closed = Code("closed")
        /// Anything not covered above; the ``SandboxError/cause`` tells more.
        public static let unknown = Code("unknown")
    }

    /// A source location, captured with `#fileID` and `#line`.
    public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
        /// The file, as `#fileID` spells it (`SandboxCore/ConfinedRoot+Open.swift`).
        public var file: String
        /// The line in ``file``.
        public var line: Int
        /// A location given explicitly, e.g. one passed down from a caller's `#fileID` and `#line`.
        public init(file: String, line: Int) {
            self.file = file
            self.line = line
        }
        /// The location of the call: `#fileID` and `#line` as the caller sees them.
        public static func here(_ file: String = #fileID, _ line: Int = #line) -> SourceLocation {
            SourceLocation(file: file, line: line)
        }
        /// `file:line`, as a compiler prints a location.
        public var description: String { "\(file):\(line)" }
    }
}
