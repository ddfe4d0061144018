import CSandboxShims
import Glibc

extension ConfinedRoot {
    /// Opens the regular file at `path` for reading and returns it with its resource values: those
    /// of the `statx` the open makes to check that the file is a regular one, so a caller that
    /// needs both (a server's `GET`: the size, the validators) makes one system call where
    /// ``openFile(forReadingAt:engine:)`` then ``OpenFile/attributes()`` make two.
    ///
    /// The values describe the file opened, as it was when opened.
    ///
    /// - Throws: as ``openFile(forReadingAt:engine:)``.
    package func openFileDescribed(
        forReadingAt path: ContainerPath, engine: IOEngine = .shared
    ) throws(SandboxError) -> (file: OpenFile, attributes: FileAttributes) {
        let opened = try openRegularFileDescribed(path)
        let attributes = opened.attributes
        return (
            OpenFile(opened.descriptor, path: path.description, access: .reading, buffers: engine.buffers), attributes
        )
    }

    /// Opens a regular file for reading: `O_NONBLOCK` so a FIFO cannot hang the open, then checked
    /// with `statx` (whose values are returned) and made blocking again. Every read-only open of a
    /// regular file comes here.
    ///
    /// - Throws: ``SandboxError/Code/isADirectory``, ``SandboxError/Code/notARegularFile``, and
    ///   the errors of the open and of `statx`.
    func openRegularFileDescribed(
        _ path: ContainerPath
    ) throws(SandboxError) -> DescribedDescriptor {
        let file = try open(path, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY)
        let attributes = try Self.statx(file.rawValue, "", flags: CSB_AT_EMPTY_PATH, path: path.description)
        switch attributes.type {
        case .regular:
            _ = fcntl(file.rawValue, F_SETFL, O_RDONLY)  // back to blocking reads
            return DescribedDescriptor(descriptor: file, attributes: attributes)
        case .directory:
            throw .rule(.isADirectory, "'\(path)' is a directory; a file was expected.", path: path.description)
        default:
            throw .rule(
                .notARegularFile, "'\(path)' is a FIFO, socket or device; only regular files can be read.",
                path: path.description)
        }
    }
}

/// An open descriptor with the values of the `statx` made when it was opened.
struct DescribedDescriptor: ~Copyable {
    var descriptor: OwnedDescriptor
    let attributes: FileAttributes
}
