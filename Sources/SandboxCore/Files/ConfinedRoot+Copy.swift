import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Copies the item at `source` to `destination`, which must not exist yet.
    ///
    /// Files are copied by reflink or `copy_file_range` where the file system allows, with their
    /// permissions and `user.` extended attributes (which hold "excluded from backup"), and appear
    /// at `destination` only when complete. Directories keep their `user.` extended attributes too.
    /// Directories are copied with an explicit stack (any depth,
    /// names byte for byte) through descriptors opened with `O_NOFOLLOW`; symlinks inside them are
    /// copied as symlinks, never followed. A symlink at `source` itself is followed (within the
    /// container).
    ///
    /// - Returns: how many items were copied.
    /// - Throws: ``SandboxError/Code/alreadyExists``, ``SandboxError/Code/notFound``,
    ///   ``SandboxError/Code/notARegularFile`` for FIFOs, sockets and devices,
    ///   ``SandboxError/Code/noSpace``, ``SandboxError/Code/concurrentModification``, and
    ///   resolution errors such as ``SandboxError/Code/escapesContainer`` for either path.
    @discardableResult
    public func copyItem(from source: ContainerPath, to destination: ContainerPath) throws(SandboxError) -> Int {
        let input = try open(source, flags: O_RDONLY | O_NONBLOCK)
        let destinationParent = try openParent(of: destination)
        var info = stat()
        _ = try syscall("fstat", path: source.description) { fstat(input.rawValue, &info) }
        return try copyTree(input.rawValue, info, into: destinationParent, source: source, destination: destination)
    }

    /// Copies the open item `input` to the name `parent` holds.
    func copyTree(
        _ input: CInt,
        _ info: stat,
        into parent: borrowing ParentDirectory,
        source: ContainerPath,
        destination: ContainerPath
    ) throws(SandboxError) -> Int {
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            try CopyVisitor.copyFile(input, info, to: parent.rawValue, named: parent.name, destination: destination)
            return 1
        case S_IFDIR:
            _ = try syscall("mkdirat", path: destination.description) {
                mkdirat(parent.rawValue, parent.name.cString, info.st_mode & 0o7777 | 0o700)
            }
            let output = OwnedDescriptor(
                taking: try syscall("openat", path: destination.description) {
                    openat(
                        parent.rawValue, parent.name.cString,
                        O_RDONLY | CSB_O_DIRECTORY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
                })
            // A directory copied into itself must not copy its own copy.
            let skipped = try FileIdentity(of: output.rawValue, path: destination.description)
            try ExtendedAttributes.copyUserAttributes(from: input, to: output.rawValue, path: destination.description)
            var walk = try TreeWalk(root: input, at: source, mirror: output.rawValue)
            var visitor = CopyVisitor(destination: destination, skipped: skipped)
            try walk.run(&visitor)
            _ = fchmod(output.rawValue, info.st_mode & 0o7777)
            return visitor.copied + 1
        default:
            throw .rule(
                .notARegularFile, "'\(source)' is a FIFO, socket or device, which cannot be copied.",
                path: source.description)
        }
    }
}

/// Recreates in the mirror (the destination) what a walk meets in the source.
private struct CopyVisitor: TreeVisitor {
    let destination: ContainerPath
    let skipped: FileIdentity
    private(set) var copied = 0

    init(destination: ContainerPath, skipped: FileIdentity) {
        self.destination = destination
        self.skipped = skipped
    }

    mutating func visit(_ entry: WalkEntry, at location: borrowing WalkLocation) throws(SandboxError) -> Bool {
        guard let output = entry.mirror else { return false }
        let name = entry.fileName
        var info = stat()
        if fstatat(entry.directory, entry.name, &info, CSB_AT_SYMLINK_NOFOLLOW) != 0 {
            if errno == ENOENT { return false }
            throw .systemCall("fstatat", errno: Errno(rawValue: errno), path: location.display(name))
        }
        if FileIdentity(info) == skipped { return false }
        // Built only when needed: rebasing costs the depth.
        func target() -> WalkLocation { location.rebased(on: destination) }
        switch info.st_mode & S_IFMT {
        case S_IFLNK:
            var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
            let count = try syscall("readlinkat", path: location.display(name)) {
                readlinkat(entry.directory, entry.name, &buffer, buffer.count - 1)
            }
            buffer[count] = 0
            _ = try syscall("symlinkat", path: target().display(name)) { symlinkat(buffer, output, entry.name) }
        case S_IFDIR:
            _ = try syscall("mkdirat", path: target().display(name)) {
                mkdirat(output, entry.name, info.st_mode & 0o7777 | 0o700)
            }
            copied += 1
            return true
        case S_IFREG:
            let fd = openat(entry.directory, entry.name, O_RDONLY | O_NONBLOCK | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
            if fd < 0 {
                if errno == ENOENT { return false }
                throw .systemCall("openat", errno: Errno(rawValue: errno), path: location.display(name))
            }
            let input = OwnedDescriptor(taking: fd)
            try Self.copyFile(
                input.rawValue, info, to: output, named: name, destination: target().path(of: name) ?? destination)
        default:
            throw .rule(
                .notARegularFile, "'\(location.display(name))' is a FIFO, socket or device, which cannot be copied.",
                path: location.display(name))
        }
        copied += 1
        return false
    }

    func enter(
        _ directory: CInt, named name: FileName, mirrorParent: CInt?, at location: borrowing WalkLocation
    ) throws(SandboxError) -> CInt? {
        guard let mirrorParent else { return nil }
        let path = location.rebased(on: destination).display()
        let mirror = try syscall("openat", path: path) {
            openat(mirrorParent, name.cString, O_RDONLY | CSB_O_DIRECTORY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
        }
        do throws(SandboxError) {
            try ExtendedAttributes.copyUserAttributes(from: directory, to: mirror, path: path)
        } catch {
            close(mirror)
            throw error
        }
        return mirror
    }

    func leave(
        _ directory: CInt, named name: FileName, in parent: CInt, mirror: CInt?, at location: borrowing WalkLocation
    ) throws(SandboxError) {
        guard let mirror else { return }
        var info = stat()
        _ = try syscall("fstat", path: location.display()) { fstat(directory, &info) }
        _ = fchmod(mirror, info.st_mode & 0o7777)
    }

    /// Copies the open regular file `input` to `name` in `parent`, atomically and without replacing.
    /// `destination` names it in messages (the copy's top when the file is too deep for a path).
    static func copyFile(
        _ input: CInt, _ info: stat, to parent: CInt, named name: FileName, destination: ContainerPath
    ) throws(SandboxError) {
        try AtomicFile.create(
            in: parent, named: name, path: destination, options: [.atomic, .withoutOverwriting],
            permissions: info.st_mode & 0o7777
        ) { output throws(SandboxError) in
            try ByteCopier.copy(from: input, to: output, wholeFile: true, path: destination.description)
            _ = fchmod(output, info.st_mode & 0o7777)
            try ExtendedAttributes.copyUserAttributes(from: input, to: output, path: destination.description)
        }
    }
}
