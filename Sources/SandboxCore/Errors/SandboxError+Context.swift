/// A key for a typed value a module attaches to a ``SandboxError`` (a download's resume data, a
/// share's `Retry-After`): the core stores it without knowing its type.
///
/// A module declares a key and a property that reads it:
///
/// ```swift
/// enum ResumeDataKey: SandboxErrorKey { typealias Value = ResumeData }
/// extension SandboxError {
///     public var resumeData: ResumeData? {
///         get { self[ResumeDataKey.self] }
///         set { self[ResumeDataKey.self] = newValue }
///     }
/// }
/// ```
public protocol SandboxErrorKey {
    /// The type of the value stored under this key.
    associatedtype Value: Sendable
}

extension SandboxError {
    /// The typed values modules attach to an error, one per ``SandboxErrorKey``.
    public struct Context: Sendable {
        private var values: [ObjectIdentifier: any Sendable] = [:]

        /// No values.
        public init() {}

        /// The value stored under `key`, or `nil`.
        public subscript<Key: SandboxErrorKey>(key: Key.Type) -> Key.Value? {
            get { values[ObjectIdentifier(key)] as? Key.Value }
            set {
                if let newValue {
                    values[ObjectIdentifier(key)] = newValue
                } else {
                    values[ObjectIdentifier(key)] = nil
                }
            }
        }
    }

    /// The value a module attached under `key`, or `nil`.
    public subscript<Key: SandboxErrorKey>(key: Key.Type) -> Key.Value? {
        get { context[key] }
        set { context[key] = newValue }
    }
}
