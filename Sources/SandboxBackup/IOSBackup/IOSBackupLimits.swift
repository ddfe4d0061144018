import SandboxStore

/// How much an iOS backup folder may hold for ``IOSBackup`` to take it: a backup is data from
/// outside, and an import stages all of its app's domain before the swap.
public struct IOSBackupLimits: Sendable, Hashable {
    /// The largest `Manifest.db`, in bytes.
    public var maximumManifestBytes: Int64
    /// The most rows of the imported domains (files, folders, links), and the most items an
    /// export writes.
    public var maximumItems: Int
    /// The most bytes of file contents of the imported domains, or of an export.
    public var maximumBytes: Int64
    /// The bounds of reading one row's `MBFile` archive.
    public var archive: PropertyListLimits

    /// - Parameters:
    ///   - maximumManifestBytes: 1 GiB by default.
    ///   - maximumItems: 1,000,000 by default.
    ///   - maximumBytes: 64 GiB by default.
    ///   - archive: a depth of 8 and 1 MiB of values by default (an `MBFile` is a few hundred bytes).
    public init(
        maximumManifestBytes: Int64 = 1 << 30, maximumItems: Int = 1_000_000, maximumBytes: Int64 = 64 << 30,
        archive: PropertyListLimits = PropertyListLimits(maximumDepth: 8, maximumOutputSize: 1 << 20)
    ) {
        self.maximumManifestBytes = maximumManifestBytes
        self.maximumItems = maximumItems
        self.maximumBytes = maximumBytes
        self.archive = archive
    }

    /// The defaults.
    public static let `default` = IOSBackupLimits()

    /// The limits of copying a container's tree.
    var container: XcodeContainerLimits {
        XcodeContainerLimits(maximumItems: maximumItems, maximumBytes: maximumBytes)
    }
}

/// What ``IOSBackup/export(apps:from:to:limits:)`` or
/// ``IOSBackup/importApp(_:into:from:password:limits:)`` did.
public struct IOSBackupReport: Sendable, Hashable, Codable {
    /// The apps.
    public var apps: [String]
    /// The backup folder's host path.
    public var folder: String
    /// The domains written or read (`AppDomain-<app-id>`, `AppDomainGroup-<group-id>`).
    public var domains: [String]
    /// Items (files, folders, links).
    public var items: Int
    /// Bytes of file contents.
    public var bytes: Int64
    /// What a person should know: items left out and why, domains of the backup not taken.
    public var notes: [String]
}
