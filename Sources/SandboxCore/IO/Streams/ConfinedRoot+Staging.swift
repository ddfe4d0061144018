import CSandboxShims
import Glibc

extension ConfinedRoot {
    /// Opens the directory at `path` as a root of its own, as ``openSubroot(at:refusingSymlinks:)`` does, whose
    /// atomic writes keep their temporary names in `staging`, a directory beneath the new root
    /// that the system empties, such as a container's `tmp/`.
    ///
    /// Replacing a file atomically needs the new file under a second name for a moment (Linux
    /// cannot link a file over an existing name), and on file systems without `O_TMPFILE` the whole
    /// file is written under that name. A process killed meanwhile leaves it behind: in the staging
    /// directory, out of the user's folders, until the directory is emptied. When `staging` is
    /// missing, is not a directory, leads out of the root or is on another mount than the file
    /// written, the temporary goes beside the file, as in a root without staging (`staging` `nil`).
    ///
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/notADirectory`` and the
    ///   resolution errors of this root, for `path`.
    public func openSubroot(
        at path: ContainerPath, stagingWritesIn staging: ContainerPath?
    ) throws(SandboxError) -> ConfinedRoot {
        let fd = try open(path, flags: CSB_O_PATH | CSB_O_DIRECTORY)
        return ConfinedRoot(
            descriptor: fd.release(), hostPath: displayPath(of: path), resolution: resolution, staging: staging,
            refusesSymlinks: refusesSymlinks)
    }

    /// The directory where atomic writes keep their temporary names, or `nil` when they keep them
    /// beside the file written (see ``openSubroot(at:stagingWritesIn:)``).
    public var stagingDirectory: ContainerPath? { staging }

    /// The staging directory, open; `nil` when there is none or it cannot be used.
    func openStagingDirectory() -> HeldDirectory? {
        guard let staging else { return nil }
        do throws(SandboxError) {
            return HeldDirectory(taking: try open(staging, flags: CSB_O_PATH | CSB_O_DIRECTORY))
        } catch {
            // Missing, not a directory, or leading out of the root: temporaries go beside the file,
            // which is correct, only less tidy after a crash.
            return nil
        }
    }
}
