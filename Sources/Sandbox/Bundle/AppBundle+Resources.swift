import Foundation
import SandboxCore

extension AppBundle {
    /// `Bundle.url(forResource:withExtension:subdirectory:localization:)`.
    ///
    /// Looks in each matched `<lang>.lproj` folder in turn (``preferredLocalizations(for:)``: from
    /// `localization` when given, else from ``preferredLanguages``), then in `Base.lproj`, then at
    /// the bundle's top: `<lang>.lproj/<subdirectory>/<name>.<ext>`, …, `<subdirectory>/<name>.<ext>`.
    ///
    /// - Parameters:
    ///   - name: the resource's name; `nil` takes the first resource (by name) with the extension.
    ///   - ext: the extension, without the dot; `nil` or empty when `name` is the whole file name.
    ///   - subdirectory: a folder path inside each searched folder.
    ///   - localization: a language tag to use instead of the preferred languages.
    /// - Returns: the resource's file URL, or `nil` when no searched folder has it.
    /// - Throws: ``/SandboxCore/SandboxError/Code/escapesContainer`` and
    ///   ``/SandboxCore/SandboxError/Code/invalidPath`` for a name or subdirectory that is no path
    ///   inside the bundle; file-system errors.
    public func url(
        forResource name: String?,
        withExtension ext: String?,
        subdirectory: String? = nil,
        localization: String? = nil
    ) throws(SandboxError) -> URL? {
        try resourcePath(name, ext, subdirectory, localization).map { URL(fileURLWithPath: root.displayPath(of: $0)) }
    }

    /// `Bundle.path(forResource:ofType:inDirectory:forLocalization:)`: as
    /// ``url(forResource:withExtension:subdirectory:localization:)``, as a host path.
    public func path(
        forResource name: String?,
        ofType ext: String?,
        inDirectory subdirectory: String? = nil,
        forLocalization localization: String? = nil
    ) throws(SandboxError) -> String? {
        try resourcePath(name, ext, subdirectory, localization).map(root.displayPath(of:))
    }

    /// The resource's path inside the bundle, relative to the `.app` directory (for reading it
    /// with ``readContents(of:maximumSize:)``).
    public func resource(
        named name: String?,
        withExtension ext: String?,
        subdirectory: String? = nil,
        localization: String? = nil
    ) throws(SandboxError) -> ContainerPath? {
        try resourcePath(name, ext, subdirectory, localization)
    }

    private func resourcePath(
        _ name: String?, _ ext: String?, _ subdirectory: String?, _ localization: String?
    ) throws(SandboxError) -> ContainerPath? {
        let suffix = (ext ?? "").isEmpty ? "" : "." + (ext ?? "")
        let localized = try preferredLocalizations(for: localization.map { [$0] })
        var folders = localized.map { ContainerPath.root.appendingName($0 + ".lproj") }
        if try root.directoryExists(at: Self.base) { folders.append(Self.base) }
        folders.append(.root)
        for folder in folders {
            var directory = folder
            if let subdirectory, !subdirectory.isEmpty {
                directory = try ContainerPath(folder.storedText + "/" + subdirectory)
            }
            if let name {
                let candidate = try ContainerPath(directory.storedText + "/" + name + suffix)
                guard candidate.isDescendant(of: directory), candidate != directory else {
                    throw SandboxError(
                        .invalidPath, "'\(name + suffix)' names no resource inside '\(directory)' of the bundle.",
                        path: candidate.description)
                }
                if try root.attributes(at: candidate, followingSymlink: false) != nil { return candidate }
            } else if try root.directoryExists(at: directory) {
                let matches = try root.fileNames(at: directory).filter { suffix.isEmpty || $0.hasSuffix(suffix) }
                    .sorted()
                if let first = matches.first { return directory.appendingName(first) }
            }
        }
        return nil
    }

    private static let base = ContainerPath(constant: "Base.lproj")
}
