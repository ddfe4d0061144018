/// The rule both backends apply to the folder they are asked to watch.
enum WatchedFolder {
    /// Refuses a folder path with `..`: events name items by their path beneath the folder, so the
    /// folder is given by its own path.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidPath``.
    static func check(_ folder: ContainerPath) throws(SandboxError) {
        guard folder.names.contains(where: \.isParentReference) else { return }
        throw SandboxError(
            .invalidPath, "'\(folder)' contains '..'; give the folder's own path to watch it.", path: folder.description
        )
    }
}
