import Sandbox
import SandboxStore

extension Container {
    /// Moves a finished download into `folder` under `name`, or `name (1)`, `name (2)`, … when taken:
    /// each try is one `renameat2(RENAME_NOREPLACE)`, so nothing is ever overwritten and the file is
    /// never outside the container. Each try asks the container's policy first
    /// (``/Sandbox/Container/checkPolicy(movingFrom:to:)``), so a link the app planted on the way
    /// (`Documents` leading into `Library/Preferences`, say) never routes a download where the app
    /// may not create files. The folder is created only when the first try finds it missing
    /// (creating it every time costs a `mkdirat` and an `openat2` per component, per download).
    ///
    /// With `dataProtection`, a folder with a default protection class gets the file sealed with
    /// it (``/SandboxStore/DataProtection/moveItem(from:to:in:replacingExisting:)``), never in the
    /// clear; while that class is locked the move is refused and the file stays where it was.
    ///
    /// - Returns: where the file now is.
    /// - Throws: `protected-data-unavailable` while the folder's class is locked;
    ///   ``/SandboxCore/SandboxError/Code/readOnly`` where the policy refuses the move; the core's code
    ///   of a file failure (its ``/SandboxCore/SandboxError`` is the cause) when the move fails for
    ///   another reason, or when 1,000 names are taken.
    func moveDownload(
        from source: ContainerPath, into folder: ContainerPath, name: String, dataProtection: DataProtection?
    ) throws(SandboxError) -> ContainerPath {
        do throws(SandboxError) {
            var folderChecked = false
            var number = 0
            while number < 1000 {
                let candidate = number == 0 ? name : SuggestedFilename.numbered(name, number)
                let destination = try folder.appending(candidate)
                try checkPolicy(movingFrom: source, to: destination)
                do throws(SandboxError) {
                    if let dataProtection {
                        try dataProtection.moveItem(from: source, to: destination, in: root)
                    } else {
                        try root.moveItem(from: source, to: destination, replacingExisting: false)
                    }
                    return destination
                } catch  where error.code == .alreadyExists {
                    number += 1
                } catch  where error.code == .notFound && !folderChecked {
                    folderChecked = true  // the folder (or the source) is missing: make the folder, try again
                    try checkPolicy(allowing: .create, at: folder)
                    try root.createDirectory(at: folder, withIntermediateDirectories: true)
                }
            }
        } catch {
            throw .fileSystem(error, doing: "move the download into '\(folder)'")
        }
        throw SandboxError(
            .alreadyExists,
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
