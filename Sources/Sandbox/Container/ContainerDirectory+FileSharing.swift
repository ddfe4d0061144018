import SandboxCore

extension ContainerDirectory {
    /// Whether file sharing (Finder's and iTunes' file sharing on iOS; `sandbox share` here) shows
    /// what this directory holds: `Documents` does; its `Inbox`, where other apps deliver documents
    /// the app has not taken in yet, does not (iOS shows it to the app alone), and no other
    /// directory is shared at all.
    public var isShownByFileSharing: Bool { self == .documents }

    /// The directories inside `Documents` that file sharing never shows (``isShownByFileSharing``),
    /// as the names beneath `Documents` (`["Inbox"]`): a share hides them and everything in them.
    public static let hiddenFromFileSharing: [[FileName]] = {
        guard let documents = ContainerDirectory.documents.path else { return [] }
        return allCases.compactMap { directory in
            guard !directory.isShownByFileSharing, let path = directory.path, path.isDescendant(of: documents) else {
                return nil
            }
            return Array(path.names.dropFirst(documents.names.count))
        }
    }()
}
