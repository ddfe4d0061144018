import Sandbox

/// The one error type of the store: property lists, archives, preferences, the keychain and
/// databases.
///
/// Like ``/SandboxCore/SandboxError`` it carries a ``code`` to branch on, a ``message`` for a person that names
/// the file and says what to do, what lay underneath (``cause``), and where it was raised. A failure
/// of the file system beneath keeps the core's code (``Code/init(_:)``), so `not-found` is
/// `not-found` at every layer.
public struct StoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, as a value to match on. New codes may be added, so switch with a default.
    public var code: Code
    /// A sentence for a person: what failed, on which file, and the remedy.
    public var message: String
    /// The path involved (container-relative, or relative to the sandbox home), if any.
    public var path: String?
    /// What lay underneath: a file-system error, a decoder's or SQLite's own words.
    public var cause: Cause?
    /// Where the error was raised.
    public var location: SandboxError.SourceLocation

    /// An error of `code`, located at the caller.
    ///
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - message: a sentence for a person that names the file and the remedy.
    ///   - path: the file involved, if any.
    ///   - cause: what lay underneath, if anything.
    ///   - file: the raising file; the caller's by default.
    ///   - line: the raising line; the caller's by default.
    public init(
        _ code: Code,
        _ message: String,
        path: String? = nil,
        cause: Cause? = nil,
        file: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.path = path
        self.cause = cause
        self.location = SandboxError.SourceLocation(file: file, line: line)
    }

    /// The core's error, with its code, message and path kept.
    public init(_ error: SandboxError) {
        self.code = Code(error.code)
        self.message = error.message
        self.path = error.path
        self.cause = .fileSystem(error)
        self.location = error.location
    }

    /// The message, what lay underneath when it adds something, and the code:
    /// `'Library/x.plist' is not a property list… [corrupt]`.
    public var description: String {
        var text = message
        if let detail = cause?.detail { text += " (\(detail))" }
        return text + " [\(code)]"
    }
}

extension StoreError {
    /// What lay beneath a ``StoreError``.
    public enum Cause: Sendable, CustomStringConvertible {
        /// The file system refused, with the system call and `errno` when there is one.
        case fileSystem(SandboxError)
        /// A decoder's explanation (the coding path and what it expected).
        case decoding(String)
        /// An encoder's explanation.
        case encoding(String)
        /// A migration hook's own error.
        case migration(String)
        /// SQLite's result code and message.
        case database(String)

        /// Text worth showing after the message, if any.
        var detail: String? {
            switch self {
            case .fileSystem(let error): error.cause.map(String.init(describing:))
            case .decoding(let text), .encoding(let text), .migration(let text), .database(let text): text
            }
        }

        /// The text underneath: the system call and `errno`, or the decoder's, encoder's, hook's or SQLite's
        /// words.
        public var description: String { detail ?? "file system" }
    }
}

/// Runs a core operation, turning its ``SandboxError`` into a ``StoreError`` with the same code.
@inline(__always)
@discardableResult
func fileSystem<T>(_ body: () throws(SandboxError) -> T) throws(StoreError) -> T {
    do {
        return try body()
    } catch {
        throw StoreError(error)
    }
}
