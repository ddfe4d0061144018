import SandboxCore

extension Container {
    /// Where `directory` is in the data container, checked on disk: every component of its path a
    /// real directory, none a symbolic link (an app can replace `tmp` or `Documents` with a link,
    /// to another of its directories or out of the container).
    ///
    /// Device-wide operations (restart, purge) and ``resolvedHostPath(for:)`` go through here, so
    /// that a planted link never makes them act on, or name, anything but the directory itself. The
    /// check is made at the moment of the call; the operations that follow resolve beneath the
    /// container as always, so a link planted later still cannot lead them out.
    ///
    /// - Returns: the directory's path, or `nil` when it (or a directory on the way) is missing.
    ///   The bundle is not in the data container: its path is `nil`.
    /// - Throws: ``/SandboxCore/SandboxError/Code/escapesContainer`` when a component is a link
    ///   that leads out of the container; ``/SandboxCore/SandboxError/Code/notADirectory`` when it
    ///   is a link inside it or another kind of item; resolution and file-system errors.
    public func locate(_ directory: ContainerDirectory) throws(SandboxError) -> ContainerPath? {
        guard let path = directory.path else { return nil }
        var prefix = ContainerPath.root
        for name in path.names {
            prefix = prefix.appending(name)
            guard let attributes = try root.attributes(at: prefix, followingSymlink: false) else { return nil }
            switch attributes.type {
            case .directory:
                continue
            case .symlink:
                throw try linkRefusal(at: prefix, standingFor: directory)
            default:
                throw SandboxError(
                    .notADirectory,
                    "'\(prefix)' in the container of '\(identifier)' is a \(attributes.type), not a directory. Remove it and create the directory again.",
                    path: prefix.description)
            }
        }
        return path
    }

    /// The host path of `directory`, checked with ``locate(_:)``: never a path through a link an
    /// app planted. Give it to other programs; open files through ``root``.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when the directory is missing, and the
    ///   errors of ``locate(_:)``.
    public func resolvedHostPath(for directory: ContainerDirectory) throws(SandboxError) -> String {
        guard directory != .bundle else { return hostPath(for: .bundle) }
        guard let path = try locate(directory) else {
            throw SandboxError(
                .notFound,
                "The \(directory.rawValue) directory of '\(identifier)' is missing. Create it again to use it.",
                path: directory.path?.description)
        }
        return root.displayPath(of: path)
    }

    private func linkRefusal(
        at path: ContainerPath, standingFor directory: ContainerDirectory
    ) throws(SandboxError) -> SandboxError {
        do throws(SandboxError) {
            _ = try root.attributes(at: path)
        } catch  where error.code == .escapesContainer {
            return SandboxError(
                .escapesContainer,
                "'\(path)' in the container of '\(identifier)' is a symbolic link that leads out of the container, not the \(directory.rawValue) directory; it is not followed. Remove the link and create the directory again.",
                path: path.description)
        }
        return SandboxError(
            .notADirectory,
            "'\(path)' in the container of '\(identifier)' is a symbolic link, not the \(directory.rawValue) directory; it is not followed. Remove the link and create the directory again.",
            path: path.description)
    }
}
