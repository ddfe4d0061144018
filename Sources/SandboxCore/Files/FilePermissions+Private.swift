import SystemPackage

extension FilePermissions {
    /// `0600`: the mode every file the core creates gets unless the caller names another — private
    /// to its owner, as an iOS container is private to its app. The umask can only take bits away,
    /// so a file is `0600` whatever the umask (`000` included).
    ///
    /// Every writer of new files goes through the core's publish step (``ConfinedRoot/writeContents(_:to:options:)``,
    /// ``ConfinedRoot/importFile(fromHost:to:options:)``, ``ConfinedRoot/openWriter(at:options:engine:)``,
    /// ``ConfinedRoot/openFile(forWritingAt:options:engine:)``), so `sandbox put`, downloads, the share's
    /// uploads and the stores inherit it. A file that replaces another keeps the replaced one's
    /// mode; copies (``ConfinedRoot/copyItem(from:to:)``, ``ConfinedRoot/importItem(fromHost:to:)``)
    /// keep their source's.
    public static let privateFile: FilePermissions = [.ownerReadWrite]

    /// `0700`: the mode every directory the core creates gets unless the caller names another
    /// (``ConfinedRoot/createDirectory(at:withIntermediateDirectories:permissions:)``,
    /// ``ConfinedRoot/creatingDirectory(atHostPath:resolution:)``).
    public static let privateDirectory: FilePermissions = [.ownerReadWriteExecute]
}
