import Foundation
import SandboxCore

/// An installed app's bundle, read-only: its resources and their localized variants.
///
/// There are no write operations: the bundle is sealed at install and replaced only by an update
/// (``SandboxHome/update(_:bundleDirectory:allowingNewSigner:)``). Paths are relative to the
/// `<Name>.app` directory and confined beneath it.
public final class AppBundle: Sendable {
    /// The directory's name, e.g. `Notes.app`.
    public let name: String
    /// The languages look-ups prefer, most wanted first (see ``Container/bundle(preferredLanguages:environment:)``).
    public let preferredLanguages: [String]
    /// The `.app` directory, confined.
    let root: ConfinedRoot

    init(name: String, root: ConfinedRoot, preferredLanguages: [String]) {
        self.name = name
        self.root = root
        self.preferredLanguages = preferredLanguages
    }

    /// The host path of the `.app` directory, for display and for other programs.
    public var hostPath: String { root.hostPath }

    /// Reads a resource's bytes.
    ///
    /// - Throws: as ``/SandboxCore/ConfinedRoot/readContents(of:maximumSize:)``.
    public func readContents(
        of path: ContainerPath, maximumSize: Int = ConfinedRoot.defaultMaximumReadSize
    ) throws(SandboxError) -> [UInt8] {
        try root.readContents(of: path, maximumSize: maximumSize)
    }

    /// Whether a regular file exists at `path`.
    public func fileExists(at path: ContainerPath) throws(SandboxError) -> Bool {
        try root.fileExists(at: path)
    }

    /// The items of a directory of the bundle.
    public func contentsOfDirectory(
        at path: ContainerPath, recursive: Bool = false
    ) throws(SandboxError) -> [DirectoryEntry] {
        try root.contentsOfDirectory(at: path, recursive: recursive)
    }

    /// The localizations the bundle has: the names of its top-level `*.lproj` folders without the
    /// suffix (`Base` included), sorted.
    public func localizations() throws(SandboxError) -> [String] {
        try root.subdirectoryNames(at: .root)
            .filter { $0.hasSuffix(".lproj") && $0.count > 6 }
            .map { String($0.dropLast(6)) }
            .sorted()
    }

    /// `Bundle.preferredLocalizations`: the bundle's localizations that suit `languages` (by
    /// default ``preferredLanguages``), best first; see ``LocalizationMatcher``.
    public func preferredLocalizations(for languages: [String]? = nil) throws(SandboxError) -> [String] {
        LocalizationMatcher.preferredLocalizations(
            from: try localizations(), forPreferences: languages ?? preferredLanguages)
    }
}
