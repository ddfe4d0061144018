/// How much an Xcode container package may hold for ``XcodeContainer`` to take it: a package is
/// data from outside, and an import stages all of it beside the live container before the swap.
public struct XcodeContainerLimits: Sendable, Hashable {
    /// The most items (files, folders, links) in `AppData`.
    public var maximumItems: Int
    /// The most bytes of file contents in `AppData`.
    public var maximumBytes: Int64

    /// - Parameters:
    ///   - maximumItems: 1,000,000 by default.
    ///   - maximumBytes: 64 GiB by default.
    public init(maximumItems: Int = 1_000_000, maximumBytes: Int64 = 64 << 30) {
        self.maximumItems = maximumItems
        self.maximumBytes = maximumBytes
    }

    /// The defaults.
    public static let `default` = XcodeContainerLimits()
}

/// What ``XcodeContainer/export(app:from:to:limits:)`` or
/// ``XcodeContainer/importContainer(app:into:from:limits:)`` did.
public struct XcodeContainerReport: Sendable, Hashable, Codable {
    /// The app.
    public var app: String
    /// The package's host path.
    public var package: String
    /// Items copied (files, folders, links).
    public var items: Int
    /// Bytes of file contents copied.
    public var bytes: Int64
    /// What a person should know: items left out of an export and why; a package of another app.
    public var notes: [String]
}
