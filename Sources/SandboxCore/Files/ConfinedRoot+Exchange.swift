import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Swaps the items at `first` and `second` in one step, with `renameat2(RENAME_EXCHANGE)`:
    /// every observer sees either both old names or both new ones, never one missing. Both items
    /// must exist; they may be of different types (a directory and a file).
    ///
    /// - Throws: ``SandboxError/Code/notFound`` when either item is missing,
    ///   ``SandboxError/Code/unsupported`` when the file system cannot exchange (some network and
    ///   FUSE file systems), ``SandboxError/Code/invalidArgument`` when one path contains the other,
    ///   and resolution errors such as ``SandboxError/Code/escapesContainer``.
    public func exchangeItems(at first: ContainerPath, with second: ContainerPath) throws(SandboxError) {
        let firstParent = try openParent(of: first)
        let firstName = firstParent.name.cString
        let secondParent = try openParent(of: second)
        let secondName = secondParent.name.cString
        if csb_renameat2(firstParent.rawValue, firstName, secondParent.rawValue, secondName, CSB_RENAME_EXCHANGE) == 0 {
            return
        }
        switch Errno(rawValue: errno) {
        case .invalidArgument where first.isDescendant(of: second) || second.isDescendant(of: first):
            throw .rule(
                .invalidArgument, "'\(first)' and '\(second)' cannot be exchanged: one contains the other.",
                path: first.description)
        case .invalidArgument, .notSupported:
            throw .rule(
                .unsupported,
                "The file system holding '\(first)' cannot exchange two items atomically (renameat2 RENAME_EXCHANGE); use a local file system such as ext4, XFS, Btrfs or tmpfs.",
                path: first.description)
        case .noSuchFileOrDirectory:
            throw .rule(
                .notFound, "'\(first)' and '\(second)' must both exist to be exchanged; one of them is missing.",
                path: first.description)
        case let error:
            throw .systemCall("renameat2", errno: error, path: first.description)
        }
    }
}
