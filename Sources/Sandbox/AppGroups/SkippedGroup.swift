import SandboxCore

/// An App Group whose container a device-wide operation (``SandboxHome/purge(bytes:)``,
/// ``SandboxHome/storageValues()``) could not process: skipped and named with the error, as a
/// ``SkippedApp`` is, while the rest is done.
public struct SkippedGroup: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The group skipped.
    public var group: AppGroupIdentifier
    /// The error's code, as ``/SandboxCore/SandboxError/Code`` spells it (`not-a-directory`).
    public var code: String
    /// What failed, on which path, and the remedy.
    public var message: String

    /// The group `group`, skipped because of `error`, whose code and message the report keeps.
    public init(group: AppGroupIdentifier, error: SandboxError) {
        self.group = group
        self.code = error.code.description
        self.message = error.message
    }

    /// `App Group 'group.com.example.shared' was skipped: … [code]`.
    public var description: String { "App Group '\(group)' was skipped: \(message) [\(code)]" }
}
