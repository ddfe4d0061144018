import SystemPackage

extension ConfinedRoot {
    /// Makes the directory at `path` private to its owner (`FilePermissions.privateDirectory`,
    /// `0700`) when a group or other bit is set on it: for tightening, at first use, a directory
    /// made before the core created private ones. Only that directory changes, not what is in it.
    ///
    /// - Returns: whether its mode changed (`false` also on a read-only file system, where nothing
    ///   can be written either).
    /// - Throws: ``SandboxError/Code/permissionDenied`` when it is not the caller's, and the
    ///   errors of ``setPermissions(_:at:)``.
    @discardableResult
    public func makeDirectoryPrivate(at path: ContainerPath) throws(SandboxError) -> Bool {
        guard let attributes = try attributes(at: path, followingSymlink: false),
            attributes.permissions.rawValue & 0o077 != 0
        else { return false }
        do throws(SandboxError) {
            try setPermissions(.privateDirectory, at: path)
            return true
        } catch  where error.code == .readOnly {
            return false
        }
    }
}
