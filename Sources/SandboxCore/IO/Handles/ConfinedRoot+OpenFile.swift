import Glibc
import SystemPackage

extension ConfinedRoot {
    /// Opens the regular file at `path` for reading.
    ///
    /// - Parameters:
    ///   - path: the regular file to open, relative to the root.
    ///   - engine: whose buffer pool the handle's reads use.
    /// - Throws: ``SandboxError/Code/notFound``, ``SandboxError/Code/isADirectory``,
    ///   ``SandboxError/Code/notARegularFile`` (FIFOs, sockets, devices),
    ///   ``SandboxError/Code/permissionDenied``, ``SandboxError/Code/tooManyOpenFiles`` when the
    ///   process is out of descriptors, and resolution errors such as
    ///   ``SandboxError/Code/escapesContainer``.
    public func openFile(forReadingAt path: ContainerPath, engine: IOEngine = .shared) throws(SandboxError) -> OpenFile
    {
        let file = try openRegularFile(path)
        return OpenFile(file, path: path.description, access: .reading, buffers: engine.buffers)
    }

    /// Opens the regular file at `path` for writing, in place: writes are visible to readers as they
    /// happen. To replace a file atomically, use ``openWriter(at:options:engine:)``.
    ///
    /// - Parameters:
    ///   - path: the regular file to open, relative to the root.
    ///   - options: whether to create, empty or refuse an existing file; by default an existing
    ///     file is opened as it is and a missing one created.
    ///   - engine: whose buffer pool the handle's reads use; ``IOEngine/shared`` by default.
    /// - Throws: ``SandboxError/Code/alreadyExists`` (``FileOpenOptions/ExistingFile/fail``),
    ///   ``SandboxError/Code/notFound`` (no `createIfMissing`, or a missing parent), and the errors
    ///   of ``openFile(forReadingAt:engine:)``.
    public func openFile(
        forWritingAt path: ContainerPath,
        options: FileOpenOptions = .modifyFile(createIfNecessary: true),
        engine: IOEngine = .shared
    ) throws(SandboxError) -> OpenFile {
        try openFile(at: path, access: .writing, options: options, engine: engine)
    }

    /// Opens the regular file at `path` for reading and writing.
    ///
    /// - Throws: as ``openFile(forWritingAt:options:engine:)``.
    public func openFile(
        forReadingAndWritingAt path: ContainerPath,
        options: FileOpenOptions = .modifyFile(createIfNecessary: true),
        engine: IOEngine = .shared
    ) throws(SandboxError) -> OpenFile {
        try openFile(at: path, access: .readingAndWriting, options: options, engine: engine)
    }

    /// Opens the file at `path`, runs `body` with it, and closes it, also when `body` throws.
    ///
    /// - Throws: the errors of the `openFile` functions, what `body` throws, and the `close(2)`
    ///   error (when `body` succeeded).
    public func withFile<R>(
        at path: ContainerPath,
        access: FileAccess = .reading,
        options: FileOpenOptions = .modifyFile(createIfNecessary: true),
        engine: IOEngine = .shared,
        _ body: (OpenFile) throws(SandboxError) -> R
    ) throws(SandboxError) -> R {
        let file =
            access == .reading
            ? try openFile(forReadingAt: path, engine: engine)
            : try openFile(at: path, access: access, options: options, engine: engine)
        let result: R
        do throws(SandboxError) {
            result = try body(file)
        } catch {
            try? file.close()  // `error` propagates; a close failure after it adds nothing
            throw error
        }
        try file.close()
        return result
    }

    func openFile(
        at path: ContainerPath, access: FileAccess, options: FileOpenOptions, engine: IOEngine
    ) throws(SandboxError) -> OpenFile {
        let file = try openRegularFile(path, flags: access.openFlags | options.openFlags, mode: options.permissions)
        return OpenFile(file, path: path.description, access: access, buffers: engine.buffers)
    }

    /// Opens a regular file with `flags`: `O_NONBLOCK` so that a FIFO cannot hang the open, then
    /// checked with `fstat` and made blocking again.
    func openRegularFile(_ path: ContainerPath, flags: CInt, mode: mode_t) throws(SandboxError) -> OwnedDescriptor {
        if flags & O_ACCMODE == O_RDONLY && flags & O_CREAT == 0 {
            return try openRegularFile(path)
        }
        let file = try open(path, flags: flags | O_NONBLOCK | O_NOCTTY, mode: mode)
        var info = stat()
        _ = try syscall("fstat", path: path.description) { fstat(file.rawValue, &info) }
        switch info.st_mode & S_IFMT {
        case S_IFREG:
            _ = fcntl(file.rawValue, F_SETFL, flags & O_APPEND)  // blocking again; keep O_APPEND
            return file
        case S_IFDIR:
            throw .rule(.isADirectory, "'\(path)' is a directory; a file was expected.", path: path.description)
        default:
            throw .rule(
                .notARegularFile, "'\(path)' is a FIFO, socket or device; only regular files can be opened.",
                path: path.description)
        }
    }
}

extension OpenFile {
    /// Takes ownership of an open descriptor (for example standard input, or one received from
    /// another process): it is closed by ``close()`` or when the handle goes away.
    ///
    /// - Parameters:
    ///   - descriptor: the descriptor; the caller must not use or close it afterwards.
    ///   - access: what the descriptor was opened for.
    ///   - name: how messages name the file.
    ///   - engine: whose buffer pool the handle's reads use; ``IOEngine/shared`` by default.
    public convenience init(
        takingOwnershipOf descriptor: FileDescriptor, access: FileAccess, name: String, engine: IOEngine = .shared
    ) {
        self.init(OwnedDescriptor(taking: descriptor.rawValue), path: name, access: access, buffers: engine.buffers)
    }
}
