import CSandboxShims
import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Copies the item at `source` to `destination`, which must not exist yet.
    ///
    /// Files are copied by reflink or `copy_file_range` where the file system allows, with their
    /// permissions and `user.` extended attributes (which hold "excluded from backup"), and appear
    /// at `destination` only when complete. Directories are copied recursively through descriptors
    /// opened with `O_NOFOLLOW`; symlinks inside them are copied as symlinks, never followed. A
    /// symlink at `source` itself is followed (within the container).
    ///
    /// - Returns: how many items were copied.
    /// - Throws: ``SandboxError/Code/alreadyExists``, ``SandboxError/Code/notFound``,
    ///   ``SandboxError/Code/notARegularFile`` for FIFOs, sockets and devices,
    ///   ``SandboxError/Code/noSpace``, and resolution errors such as
    ///   ``SandboxError/Code/escapesContainer`` for either path.
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
        let reader = DirectoryReader()
        return try Self.copy(input, info, to: parent.rawValue, named: parent.name,
                             source: source, destination: destination, reader, skipping: nil)
    }

    private struct Identity: Equatable {
        var device: UInt64
        var inode: UInt64
    }

    private static func copy(
        _ input: CInt,
        _ info: stat,
        to parent: CInt,
        named name: String,
        source: ContainerPath,
        destination: ContainerPath,
        _ reader: borrowing DirectoryReader,
        skipping skipped: Identity?
    ) throws(SandboxError) -> Int {
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            try copyFile(input, info, to: parent, named: name, source: source, destination: destination)
            return 1
        case S_IFDIR:
            _ = try syscall("mkdirat", path: destination.description) { mkdirat(parent, name, info.st_mode & 0o7777 | 0o700) }
            let output = OwnedDescriptor(taking: try syscall("openat", path: destination.description) {
                openat(parent, name, O_RDONLY | CSB_O_DIRECTORY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
            })
            var created = stat()
            _ = fstat(output.rawValue, &created)
            // A directory copied into itself must not copy its own copy.
            let skip = skipped ?? Identity(device: UInt64(created.st_dev), inode: UInt64(created.st_ino))
            var count = 1
            for (child, _) in try reader.entries(of: input, path: source.description) {
                let childSource = source.appendingTrusted(child)
                let childDestination = destination.appendingTrusted(child)
                var childInfo = stat()
                if fstatat(input, child, &childInfo, CSB_AT_SYMLINK_NOFOLLOW) != 0 {
                    if errno == ENOENT { continue }
                    throw .systemCall("fstatat", errno: Errno(rawValue: errno), path: childSource.description)
                }
                if Identity(device: UInt64(childInfo.st_dev), inode: UInt64(childInfo.st_ino)) == skip { continue }
                if childInfo.st_mode & S_IFMT == S_IFLNK {
                    try copySymlink(in: input, named: child, to: output.rawValue, source: childSource, destination: childDestination)
                    count += 1
                    continue
                }
                let childFD = openat(input, child, O_RDONLY | O_NONBLOCK | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
                if childFD < 0 {
                    if errno == ENOENT { continue }
                    throw .systemCall("openat", errno: Errno(rawValue: errno), path: childSource.description)
                }
                let childInput = OwnedDescriptor(taking: childFD)
                count += try copy(childInput.rawValue, childInfo, to: output.rawValue, named: child,
                                  source: childSource, destination: childDestination, reader, skipping: skip)
            }
            _ = fchmod(output.rawValue, info.st_mode & 0o7777)
            return count
        default:
            throw .rule(.notARegularFile, "'\(source)' is a FIFO, socket or device, which cannot be copied.", path: source.description)
        }
    }

    private static func copyFile(
        _ input: CInt,
        _ info: stat,
        to parent: CInt,
        named name: String,
        source: ContainerPath,
        destination: ContainerPath
    ) throws(SandboxError) {
        try AtomicFile.create(in: parent, named: name, path: destination, options: [.atomic, .withoutOverwriting],
                              permissions: info.st_mode & 0o7777) { output throws(SandboxError) in
            try ByteCopier.copy(from: input, to: output, wholeFile: true, path: source.description)
            _ = fchmod(output, info.st_mode & 0o7777)
            try ExtendedAttributes.copyUserAttributes(from: input, to: output, path: destination.description)
        }
    }

    private static func copySymlink(
        in directory: CInt,
        named name: String,
        to output: CInt,
        source: ContainerPath,
        destination: ContainerPath
    ) throws(SandboxError) {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = try syscall("readlinkat", path: source.description) { readlinkat(directory, name, &buffer, buffer.count - 1) }
        buffer[count] = 0
        _ = try syscall("symlinkat", path: destination.description) { symlinkat(buffer, output, name) }
    }
}
