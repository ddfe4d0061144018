/// The shape every error of the Sandbox libraries shares: ``SandboxError`` here, `StoreError`
/// and `TransferError` in the modules above.
///
/// Each carries a code to branch on (its spelling, ``codeName``, is stable kebab-case such as
/// `escapes-container`), a message for a person that names the path and the remedy, the path
/// involved, the source location that raised it, and — when the file system was the cause — the
/// core's error underneath. Callers that only report or classify failures handle them once, as
/// `any SandboxFailure`, whatever layer threw:
///
/// ```swift
/// do { try work() } catch let failure as any SandboxFailure {
///     print("\(failure.message) [\(failure.codeName)]")
/// }
/// ```
public protocol SandboxFailure: Error, Sendable, CustomStringConvertible {
    /// The failure's code as its stable spelling, e.g. `not-found`. A failure of the file system
    /// beneath keeps the core's spelling at every layer.
    var codeName: String { get }
    /// A sentence for a person: what failed, on which path, and the remedy.
    var message: String { get }
    /// The path involved, if any.
    var path: String? { get }
    /// Where the error was raised.
    var location: SandboxError.SourceLocation { get }
    /// The core's error, when the file system caused this failure.
    var fileSystemError: SandboxError? { get }
}

extension SandboxError: SandboxFailure {
    /// The code's stable spelling, e.g. `not-found` (``Code/description``).
    public var codeName: String { code.description }
    /// The error itself: every core error is a file-system failure.
    public var fileSystemError: SandboxError? { self }
}
