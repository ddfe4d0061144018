import CSandboxShims
import Glibc

extension ConfinedRoot {
    /// Whether the item at `path` is excluded from backups (iOS `isExcludedFromBackup`).
    ///
    /// Stored as the `user.sandbox.excluded-from-backup` extended attribute, so the flag travels
    /// with the file when it is moved or copied.
    ///
    /// - Throws: ``SandboxError/Code/unsupported`` where the file system has no extended
    ///   attributes; resolution errors.
    public func isExcludedFromBackup(at path: ContainerPath) throws(SandboxError) -> Bool {
        try extendedAttribute(named: ExtendedAttributes.excludedFromBackup, at: path) != nil
    }

    /// Marks or unmarks the item at `path` as excluded from backups.
    ///
    /// - Throws: as ``isExcludedFromBackup(at:)``.
    public func setExcludedFromBackup(_ excluded: Bool, at path: ContainerPath) throws(SandboxError) {
        if excluded {
            try setExtendedAttribute(named: ExtendedAttributes.excludedFromBackup, to: Array("1".utf8), at: path)
        } else {
            try removeExtendedAttribute(named: ExtendedAttributes.excludedFromBackup, at: path)
        }
    }

    /// The value of the extended attribute `name` of the item at `path`, or `nil` if it has none.
    public func extendedAttribute(named name: String, at path: ContainerPath) throws(SandboxError) -> [UInt8]? {
        let fd = try openForAttributes(path)
        return try ExtendedAttributes.value(of: name, fd: fd.rawValue, path: path.description)
    }

    /// Sets the extended attribute `name` (in the `user.` namespace for unprivileged processes).
    public func setExtendedAttribute(named name: String, to value: [UInt8], at path: ContainerPath) throws(SandboxError)
    {
        let fd = try openForAttributes(path)
        try ExtendedAttributes.setValue(value, of: name, fd: fd.rawValue, path: path.description)
    }

    /// Removes the extended attribute `name`; removing one that is absent is not an error.
    public func removeExtendedAttribute(named name: String, at path: ContainerPath) throws(SandboxError) {
        let fd = try openForAttributes(path)
        try ExtendedAttributes.remove(name, fd: fd.rawValue, path: path.description)
    }

    /// The names of the item's extended attributes.
    public func extendedAttributeNames(at path: ContainerPath) throws(SandboxError) -> [String] {
        let fd = try openForAttributes(path)
        return try ExtendedAttributes.names(fd: fd.rawValue, path: path.description)
    }

    /// `f*xattr` refuse `O_PATH` descriptors: open for reading, without blocking on a FIFO.
    private func openForAttributes(_ path: ContainerPath) throws(SandboxError) -> OwnedDescriptor {
        try open(path, flags: O_RDONLY | O_NONBLOCK | O_NOCTTY)
    }
}
