import Sandbox

extension ConfinedRoot {
    /// Moves a finished download into `folder` under `name`, or `name (1)`, `name (2)`, … when taken:
    /// each try is one `renameat2(RENAME_NOREPLACE)`, so nothing is ever overwritten and the file is
    /// never outside the container.
    ///
    /// - Returns: where the file now is.
    /// - Throws: the core's code of a file failure (its ``/SandboxCore/SandboxError`` is the cause)
    ///   when the move fails for another reason, or when 1,000 names are taken.
    func moveDownload(
        from source: ContainerPath, into folder: ContainerPath, name: String
    ) throws(TransferError) -> ContainerPath {
        do throws(SandboxError) {
            try createDirectory(at: folder, withIntermediateDirectories: true)
            for number in 0..<1000 {
                let candidate = number == 0 ? name : SuggestedFilename.numbered(name, number)
                let destination = try folder.appending(candidate)
                do throws(SandboxError) {
                    try moveItem(from: source, to: destination, replacingExisting: false)
                    return destination
                } catch  where error.code == .alreadyExists {
                    continue
                }
            }
        } catch {
            throw .fileSystem(error, doing: "move the download into '\(folder)'")
        }
        throw TransferError(
            TransferError.Code(.alreadyExists),
            "Could not move the download into '\(folder)': '\(name)' and 999 numbered names are taken; remove some.",
            path: folder.description)
    }
}

extension DownloadDestination.Folder {
    /// The folder's path in the container.
    var path: ContainerPath {
        switch self {
        case .caches: ContainerPath(constant: "Library/Caches")
        case .documents: ContainerPath(constant: "Documents")
        }
    }
}
