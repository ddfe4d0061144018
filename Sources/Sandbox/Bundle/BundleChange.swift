import SandboxCore

/// One difference between a bundle on disk and its signed manifest.
public struct BundleChange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// How an item differs from its manifest entry; the raw value is the spelling in reports.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// The contents (or size) differ.
        case modified
        /// On disk, not in the manifest.
        case added
        /// In the manifest, not on disk.
        case removed
        /// A file became a directory, a link or something else, or the other way round.
        case typeChanged = "type-changed"
        /// The permission bits are no longer the read-only ones set at install.
        case permissionsChanged = "permissions-changed"
    }

    /// The item, relative to the bundle directory.
    public var path: String
    /// How the item differs.
    public var kind: Kind

    /// The change in words, naming the path: `'Info.plist' was modified`.
    public var description: String {
        switch kind {
        case .modified: "'\(path)' was modified"
        case .added: "'\(path)' was added"
        case .removed: "'\(path)' was removed"
        case .typeChanged: "'\(path)' changed type"
        case .permissionsChanged: "'\(path)' changed permissions"
        }
    }

    /// One sentence naming the first changes (sorted by path) and how many more there are.
    static func summary(of changes: [BundleChange], inBundleNamed name: String) -> String {
        let sorted = changes.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
        let named = sorted.prefix(3).map { change in
            var shown = change
            shown.path = name + "/" + change.path
            return shown.description
        }
        let more = sorted.count > 3 ? " and \(sorted.count - 3) more" : ""
        return named.joined(separator: ", ") + more
    }
}
