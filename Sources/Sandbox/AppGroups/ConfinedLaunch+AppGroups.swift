import CSandboxShims
import Glibc
import SandboxCore

extension ConfinedLaunch {
    /// The container of an App Group a confined launch grants: opened (`O_PATH`), checked to be the
    /// group's root, and that identity, which the child checks again when it mounts it `noexec` in
    /// its private mount namespace (`csb_noexec_directory_t`).
    struct GroupDirectory {
        /// The open directory: the Landlock rule's.
        let descriptor: CInt
        /// Its absolute host path.
        let path: String
        /// Its device and inode when checked.
        let identity: csb_statx_t
    }

    /// Opens the containers of the groups the verified bundle lists, and only those (each made
    /// first if no member used it yet). The caller closes the descriptors.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/escapesContainer`` when a group's container on
    ///   disk is not the one opened; the errors of `open(2)` and of making the container.
    func openGroups() throws(SandboxError) -> [GroupDirectory] {
        var opened: [GroupDirectory] = []
        do throws(SandboxError) {
            for group in app.verification.appGroups {
                guard let root = try app.container.home.openGroupRoot(group, creating: true) else { continue }
                let path = Self.absolute(root.hostPath)
                let (descriptor, identity) = try openVerifiedIdentity(
                    path, as: root, at: .root, label: "App Group container")
                opened.append(GroupDirectory(descriptor: descriptor, path: path, identity: identity))
            }
        } catch {
            for group in opened { Glibc.close(group.descriptor) }
            throw error
        }
        return opened
    }
}
