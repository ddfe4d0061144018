import Glibc
import SandboxCore
import SandboxStore
import SystemPackage

/// An unencrypted iOS backup folder, read through a root that refuses every symlink.
struct IOSBackupFolder: IOSBackupFileSource {
    let root: ConfinedRoot
    let displayName: String
    static let manifestDatabase = ContainerPath(constant: "Manifest.db")
    static let manifestPropertyList = ContainerPath(constant: "Manifest.plist")
    /// `SQLite format 3` and its NUL.
    static let sqliteHeader = DatabaseCopy.header

    /// Opens the folder at `hostPath` and reads its `Manifest.plist`.
    ///
    /// - Parameter acceptingEncrypted: whether an encrypted backup is opened too (for
    ///   ``IOSBackupEncryptedSource``, which decrypts what this reads).
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidIOSBackup`` for a folder that is missing or
    ///   has no readable `Manifest.plist`; ``SandboxCore/SandboxError/Code/encryptedIOSBackup`` for
    ///   an encrypted backup unless `acceptingEncrypted`.
    init(opening hostPath: String, acceptingEncrypted: Bool = false) throws(SandboxError) {
        displayName = hostPath
        do {
            root = try ConfinedRoot(openingDirectoryAt: hostPath).openSubroot(at: .root, refusingSymlinks: true)
        } catch  where error.code == .notFound || error.code == .notADirectory {
            throw IOSBackupProblem.refusal(
                hostPath, error.code == .notFound ? "does not exist" : "is not a folder",
                remedy: "An iOS backup is a folder holding Manifest.plist and Manifest.db.")
        }
        let shown = root.displayPath(of: Self.manifestPropertyList)
        let manifest: PreferenceValue
        do {
            manifest = try PropertyList.value(
                from: try root.readContents(of: Self.manifestPropertyList, maximumSize: 16 << 20), path: shown)
        } catch {
            throw IOSBackupProblem.refusal(
                shown, "cannot be read as a property list (\(error.message))",
                remedy: "An iOS backup folder holds Manifest.plist and Manifest.db.")
        }
        guard case .dictionary(let keys) = manifest else {
            throw IOSBackupProblem.refusal(shown, "is not a property-list dictionary")
        }
        if case .bool(true)? = keys["IsEncrypted"], !acceptingEncrypted {
            throw SandboxError(
                .encryptedIOSBackup,
                "'\(hostPath)' is an encrypted backup: its files open only with the backup's password. Nothing was changed. Give the backup's password, or make the backup again unencrypted.",
                path: hostPath)
        }
    }

    func copyManifestDatabase(
        to name: ContainerPath, in scratch: ConfinedRoot, maximumBytes: Int64
    )
        throws(SandboxError)
    {
        let shown = root.displayPath(of: Self.manifestDatabase)
        try copy(Self.manifestDatabase, shown: shown, to: name, in: scratch) { (fd, size) throws(SandboxError) in
            guard size <= maximumBytes else {
                throw IOSBackupProblem.refusal(
                    shown, "is \(size) bytes, past the limit of \(maximumBytes)", code: .tooLarge)
            }
            var start = [UInt8](repeating: 0, count: Self.sqliteHeader.count)
            let count = try syscall("pread", path: shown) { pread(fd, &start, start.count, 0) }
            guard count == start.count, start == Self.sqliteHeader else {
                throw IOSBackupProblem.refusal(shown, "is not a SQLite database (an encrypted backup's is not either)")
            }
        }
    }

    /// Copies the file of `fileID`; an unencrypted backup's rows carry no `encryptionKey`.
    func copyFile(
        _ fileID: String, size: Int64, encryptionKey: [UInt8]?, to output: CInt, shown: String
    ) throws(SandboxError) {
        let path = try ContainerPath("\(fileID.prefix(2))/\(fileID)")
        let file: OpenFile
        do {
            file = try root.openFile(forReadingAt: path)
        } catch  where error.code != .tooManyOpenFiles && error.code != .permissionDenied {
            throw IOSBackupProblem.refusal(
                shown, "has no readable file at '\(root.displayPath(of: path))' (\(error.message))")
        }
        defer { try? file.close() }  // read-only: a failed close loses nothing
        try file.withUnsafeDescriptor { (fd) throws(SandboxError) in
            var info = stat()
            _ = try syscall("fstat", path: shown) { fstat(fd.rawValue, &info) }
            guard Int64(info.st_size) == size else {
                throw IOSBackupProblem.refusal(
                    shown,
                    "is listed as \(size) bytes, but its file '\(root.displayPath(of: path))' holds \(info.st_size)")
            }
            let copied = try ByteCopier.copy(from: fd.rawValue, to: output, wholeFile: true, path: shown)
            guard copied == size else {
                throw IOSBackupProblem.refusal(shown, "changed size while it was read (\(size) bytes, then \(copied))")
            }
        }
    }

    /// Opens `path`, lets `check` see its descriptor and size, and copies it to `name` in `scratch`.
    private func copy(
        _ path: ContainerPath, shown: String, to name: ContainerPath, in scratch: ConfinedRoot,
        check: (CInt, Int64) throws(SandboxError) -> Void
    ) throws(SandboxError) {
        let file: OpenFile
        do {
            file = try root.openFile(forReadingAt: path)
        } catch  where error.code != .tooManyOpenFiles {
            throw IOSBackupProblem.refusal(shown, "cannot be opened (\(error.message))")
        }
        defer { try? file.close() }  // read-only: a failed close loses nothing
        let output = try scratch.openFileDescriptor(at: name, creatingWith: FilePermissions(rawValue: 0o600))
        try Self.writing(output, shown: scratch.displayPath(of: name)) { () throws(SandboxError) in
            try file.withUnsafeDescriptor { (fd) throws(SandboxError) in
                var info = stat()
                _ = try syscall("fstat", path: shown) { fstat(fd.rawValue, &info) }
                try check(fd.rawValue, Int64(info.st_size))
                let copied = try ByteCopier.copy(from: fd.rawValue, to: output.rawValue, wholeFile: true, path: shown)
                guard copied == Int64(info.st_size) else {
                    throw IOSBackupProblem.refusal(shown, "changed size while it was read")
                }
            }
        }
    }

    /// Runs `body`, which writes `output`, then closes `output`: a failed close (a write-back
    /// error) is the copy's error; when `body` throws, the descriptor is only released and its
    /// error goes on.
    ///
    /// - Throws: what `body` throws; the `close(2)` error, naming `shown`.
    static func writing(
        _ output: FileDescriptor, shown: String, _ body: () throws(SandboxError) -> Void
    ) throws(SandboxError) {
        do {
            try body()
        } catch {
            _ = Glibc.close(output.rawValue)  // teardown: the body's error propagates
            throw error
        }
        // Not retried on EINTR: Linux has released the descriptor by then.
        guard Glibc.close(output.rawValue) == 0 else {
            throw .systemCall("close", errno: Errno(rawValue: errno), path: shown)
        }
    }
}
