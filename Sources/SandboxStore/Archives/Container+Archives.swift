import Sandbox

extension Container {
    /// Archives `root` with `archiver` and writes it at `path`, atomically and durably.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/encodingFailed``, ``/SandboxCore/SandboxError/Code/readOnly``
    ///   (Library/Preferences, Documents/Inbox), and the core's codes.
    public func writeArchive<Root>(
        _ root: Root, with archiver: Archiver<Root>, to path: ContainerPath
    ) throws(SandboxError) {
        try checkPolicy(allowing: .create, at: path)
        let bytes = try archiver.archive(root)
        try self.root.writeContents(bytes, to: path, options: [.atomic, .durable])
    }

    /// Reads the archive at `path` with `archiver`, migrating an older version.
    ///
    /// - Throws: the errors of ``Archiver/unarchive(_:path:)`` (the file is left as it was) and the
    ///   core's codes (e.g. `not-found`).
    public func readArchive<Root>(with archiver: Archiver<Root>, from path: ContainerPath) throws(SandboxError) -> Root
    {
        let bytes = try self.root.readContents(of: path)
        return try archiver.unarchive(bytes, path: path.description)
    }
}
