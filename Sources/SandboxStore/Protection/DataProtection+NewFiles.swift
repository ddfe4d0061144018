import CSandboxShims
import Glibc
import Sandbox
import SystemPackage

extension DataProtection {
    /// Copies the host file `hostPath` into a new file at `path`, honouring the default class of
    /// its folder (``setDefaultProtection(_:forDirectoryAt:in:)``): sealed with that class as it
    /// is read, a stripe at a time, so no plaintext of it reaches the container's disk; a plain copy
    /// (the core's ``/SandboxCore/ConfinedRoot/importFile(fromHost:to:options:)``) when the folder
    /// has none. What brings bytes from the host goes through here: `sandbox put`, Inbox delivery.
    ///
    /// - Parameters:
    ///   - hostPath: a path on the host, opened as given (a pipe is read to its end).
    ///   - path: the file to create or replace, relative to `root`.
    ///   - root: the container's root.
    ///   - options: as for ``write(_:to:in:protection:options:)``.
    /// - Returns: the bytes copied (of plaintext).
    /// - Throws: ``SandboxCore/SandboxError/Code/protectedDataUnavailable`` while the folder's class cannot be
    ///   written (``ProtectionClass/complete`` while locked, ``ProtectionClass/untilFirstUserAuthentication``
    ///   before the first unlock): nothing is written; `not-found` for a missing host file,
    ///   `is-a-directory` for a folder, and the core's codes.
    @discardableResult
    public func importFile(
        fromHost hostPath: String, to path: ContainerPath, in root: ConfinedRoot, options: WriteOptions = [.atomic]
    ) throws(SandboxError) -> Int64 {
        guard let protection = try defaultProtection(forDirectoryAt: path.parent, in: root) else {
            return try root.importFile(fromHost: hostPath, to: path, options: options)
        }
        let sealer = try makeSealer(protection: protection, path: path.description)
        let fd = Glibc.open(hostPath, O_RDONLY | CSB_O_CLOEXEC)
        guard fd >= 0 else { throw SandboxError.systemCall("open", errno: Errno(rawValue: errno), path: hostPath) }
        defer { close(fd) }  // read-only: a failed close loses nothing
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw SandboxError.systemCall("fstat", errno: Errno(rawValue: errno), path: hostPath)
        }
        guard info.st_mode & S_IFMT != S_IFDIR else {
            throw SandboxError(
                .isADirectory, "'\(hostPath)' is a directory; give a file to copy into the container.",
                path: hostPath)
        }
        return try writeSealed(
            protection, sealer: sealer, readingFrom: fd, sourceName: hostPath, to: path, in: root, options: options)
    }

    /// Moves the item at `source` to `destination` within `root` (`sandbox mv`, a finished
    /// download handed to a folder). A plain regular file moved into a folder with a default class
    /// is sealed with that class on the way — written whole at `destination`, then removed from
    /// `source` — so a protected folder never holds a plaintext file; anything else (a folder, an
    /// already protected file, which keeps its class as on iOS, a folder without a class) is
    /// renamed as ``/SandboxCore/ConfinedRoot/moveItem(from:to:replacingExisting:)`` does.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/protectedDataUnavailable`` while the class cannot be written
    ///   (the file stays at `source`); `already-exists` unless `replacingExisting`; the core's codes.
    public func moveItem(
        from source: ContainerPath, to destination: ContainerPath, in root: ConfinedRoot,
        replacingExisting: Bool = false
    ) throws(SandboxError) {
        guard let protection = try protectionToApply(copying: source, into: destination, in: root) else {
            return try root.moveItem(from: source, to: destination, replacingExisting: replacingExisting)
        }
        try sealCopy(
            of: source, as: protection, to: destination, in: root,
            options: replacingExisting ? [.atomic, .durable] : [.atomic, .durable, .withoutOverwriting])
        _ = try root.removeItem(at: source)
    }

    /// Copies the item at `source` to `destination` within `root` (`sandbox cp`), which must not
    /// exist: a plain regular file copied into a folder with a default class is sealed with that
    /// class; anything else is copied as ``/SandboxCore/ConfinedRoot/copyItem(from:to:)`` does.
    ///
    /// - Returns: how many items were copied.
    /// - Throws: as ``moveItem(from:to:in:replacingExisting:)``.
    @discardableResult
    public func copyItem(
        from source: ContainerPath, to destination: ContainerPath, in root: ConfinedRoot
    ) throws(SandboxError) -> Int {
        guard let protection = try protectionToApply(copying: source, into: destination, in: root) else {
            return try root.copyItem(from: source, to: destination)
        }
        try sealCopy(of: source, as: protection, to: destination, in: root, options: [.atomic, .withoutOverwriting])
        return 1
    }

    /// The class `source` must be sealed with on its way to `destination`: the default class of
    /// `destination`'s folder when `source` is a plain regular file; `nil` when it is to be
    /// moved or copied as it is.
    private func protectionToApply(
        copying source: ContainerPath, into destination: ContainerPath, in root: ConfinedRoot
    ) throws(SandboxError) -> ProtectionClass? {
        guard let protection = try defaultProtection(forDirectoryAt: destination.parent, in: root),
            try root.attributes(at: source, followingSymlink: false)?
                .type == .regular
        else { return nil }
        return try protectionClass(of: source, in: root) == nil ? protection : nil
    }

    /// Writes `source`'s contents sealed with `protection` at `destination`.
    private func sealCopy(
        of source: ContainerPath, as protection: ProtectionClass, to destination: ContainerPath, in root: ConfinedRoot,
        options: WriteOptions
    ) throws(SandboxError) {
        let sealer = try makeSealer(protection: protection, path: destination.description)
        let file = try root.openFile(forReadingAt: source)
        defer { try? file.close() }  // read-only: a failed close loses nothing
        let descriptor = try file.withUnsafeDescriptor { $0 }
        try writeSealed(
            protection, sealer: sealer, readingFrom: descriptor.rawValue, sourceName: source.description,
            to: destination, in: root, options: options)
    }

    /// Publishes at `path` the header of `sealer` and what `input` reads, sealed; then marks the
    /// file with its class.
    @discardableResult
    func writeSealed(
        _ protection: ProtectionClass, sealer: SegmentSealer, readingFrom input: CInt, sourceName: String,
        to path: ContainerPath, in root: ConfinedRoot, options: WriteOptions
    ) throws(SandboxError) -> Int64 {
        try writeSealed(protection, sealer: sealer, to: path, in: root, options: options) { fd throws(SandboxError) in
            try SealedFileStream.copy(
                from: input, inputPath: sourceName, sealer: sealer, to: fd, path: path.description)
        }
    }

    /// Writes a new file at `path` sealed with `protection`, its plaintext given a piece at a time
    /// by `next` — which fills some of the buffer it is handed and returns how much, 0 at the end,
    /// as `read(2)` does — one stripe in memory at a time; then marks the file with its class. For
    /// a writer that brings a file's bytes in pieces on a thread of its own (a restore, blob by blob).
    ///
    /// - Returns: the bytes of plaintext sealed.
    /// - Throws: ``SandboxCore/SandboxError/Code/protectedDataUnavailable`` while `protection` cannot be written
    ///   (nothing is written); what `next` throws (nothing is published); the core's codes.
    @discardableResult
    package func writeSealed(
        _ protection: ProtectionClass, to path: ContainerPath, in root: ConfinedRoot, options: WriteOptions,
        reading next: (UnsafeMutableRawBufferPointer) throws(SandboxError) -> Int
    ) throws(SandboxError) -> Int64 {
        let sealer = try makeSealer(protection: protection, path: path.description)
        return try writeSealed(protection, sealer: sealer, to: path, in: root, options: options) {
            fd throws(SandboxError) in
            try SealedFileStream.copy(reading: next, sealer: sealer, to: fd, path: path.description)
        }
    }

    /// Whether `start`, the first bytes of a file, hold a protected file's header: the file is
    /// sealed already, with the class its header names.
    package static func isSealed(_ start: [UInt8]) -> Bool {
        (try? ProtectedFileFormat.header(of: start, path: "")) != nil  // a damaged header: not sealed
    }

    /// Publishes at `path` the header of `sealer` and what `copy` writes to the new file's
    /// descriptor; then marks the file with its class.
    private func writeSealed(
        _ protection: ProtectionClass, sealer: SegmentSealer, to path: ContainerPath, in root: ConfinedRoot,
        options: WriteOptions, copying copy: (CInt) throws(SandboxError) -> Int64
    ) throws(SandboxError) -> Int64 {
        var sealFailure: SandboxError?
        var copied: Int64 = 0
        do throws(SandboxError) {
            try root.writeFile(at: path, options: options.union(.atomic)) { fd throws(SandboxError) in
                do throws(SandboxError) {
                    copied = try copy(fd)
                } catch {
                    sealFailure = error
                    throw SandboxError(.io, "Sealing '\(path)' failed.", path: path.description)
                }
            }
        } catch {
            throw sealFailure ?? error
        }
        try markProtected(protection, at: path, in: root)
        return copied
    }

    /// Sets the file's ``ProtectionClass/attributeName`` attribute: the header is what decides;
    /// the attribute is for `stat` (iOS's NSFileProtectionKey), and a file system without
    /// attributes only loses that.
    func markProtected(
        _ protection: ProtectionClass, at path: ContainerPath, in root: ConfinedRoot
    ) throws(SandboxError) {
        do throws(SandboxError) {
            try root.setExtendedAttribute(
                named: ProtectionClass.attributeName, to: Array(protection.rawValue.utf8), at: path)
        } catch  where error.code == .unsupported {}
    }
}
