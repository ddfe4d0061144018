import CSandboxShims
import Glibc
import Sandbox
import SandboxCore
import SandboxStore
import SystemPackage

/// Protected files (``/SandboxStore/DataProtection``) in an Xcode container package, as a person
/// using Xcode expects and as a restore writes them:
/// - **Export** writes each protected file's plaintext (Xcode cannot open a file sealed with this
///   device's keys), keeping the `user.sandbox.protection` attributes of folders and files, so an
///   import here seals them again. A protected file whose class is locked refuses the export
///   (`protected-data-unavailable`, naming its folder) before the package is published; one this
///   device's keys do not open (damaged, or moved from another device) goes as it is, with a note.
/// - **Import** seals a plain file with its own class attribute, else with its folder's default
///   class, as it is copied into the staged container; the class must be writable (its key
///   unlocked; ``/SandboxStore/ProtectionClass/completeUnlessOpen`` always is), else the import is
///   refused naming the folder. A file that is sealed already is copied as it is only when this
///   device's keys open it; any other is refused.
extension AppDataCopier {
    /// What an export or import of protected files needs: the device's Data Protection, the roots
    /// the copy reads from and writes to (paths beneath them are the walk's).
    struct Protection {
        let dataProtection: DataProtection
        let source: ConfinedRoot
        /// The package's `AppData` (export) or the staged container (import).
        let output: ConfinedRoot
    }

    /// Whether the open regular file `fd` starts as a protected file does.
    static func startsSealed(_ fd: CInt, path: String) throws(SandboxError) -> Bool {
        let magic = DataProtection.protectedFileMagic
        var start = [UInt8](repeating: 0, count: magic.count)
        let count = try syscall("pread", path: path) { pread(fd, &start, start.count, 0) }
        return count == magic.count && start == magic
    }

    /// Opens the protected file at `path` in the source again as an ``/SandboxCore/OpenFile``, the
    /// item `listed` and no other, and `body` reads it with its reader (`nil`: not a protected
    /// file after all).
    func withReader<R>(
        at path: ContainerPath, listed: stat, shown: String,
        _ body: (ProtectedFileReader?) throws(SandboxError) -> R
    ) throws(SandboxError) -> R {
        let file = try protection.source.openFile(forReadingAt: path)
        defer { try? file.close() }  // read-only: a failed close loses nothing
        var info = stat()
        _ = try file.withUnsafeDescriptor { (fd) throws(SandboxError) in
            try syscall("fstat", path: shown) { fstat(fd.rawValue, &info) }
        }
        guard FileIdentity(info) == FileIdentity(listed) else {
            throw SandboxError(
                .concurrentModification,
                "'\(shown)' was replaced while it was copied; nothing was changed. Try again once it is left alone.",
                path: shown)
        }
        return try body(try protection.dataProtection.openReader(for: file, path: shown))
    }

    /// Exports the protected file at `path` (open as `input`) as its plaintext, created in the
    /// folder `output`; returns the bytes written, or `nil` when it is copied as it is (not
    /// protected, or not opened by this device's keys: a note says so).
    mutating func exportPlaintext(
        _ entry: WalkEntry, at path: ContainerPath, listed: stat, into output: CInt, shown: String
    ) throws(SandboxError) -> Int64? {
        do throws(SandboxError) {
            return try withReader(at: path, listed: listed, shown: shown) {
                (reader) throws(SandboxError) -> Int64? in
                guard let reader else { return nil }
                let created = try syscall("openat", path: shown) {
                    openat(output, entry.name, O_WRONLY | O_CREAT | O_EXCL | CSB_O_NOFOLLOW | CSB_O_CLOEXEC, 0o600)
                }
                let copy = OwnedDescriptor(taking: created)
                var offset: Int64 = 0
                while offset < reader.contentLength {
                    let bytes = try reader.read(offset..<min(reader.contentLength, offset + Self.plaintextChunk))
                    guard !bytes.isEmpty else { break }
                    try bytes.withBytes { (buffer) throws(SandboxError) in
                        try FullWrite.write(buffer, to: copy.rawValue, path: shown)
                    }
                    offset += Int64(bytes.count)
                }
                guard offset == reader.contentLength else {
                    throw SandboxError(
                        .concurrentModification,
                        "'\(shown)' changed size while it was copied; nothing was exported. Try again once it is left alone.",
                        path: shown)
                }
                return offset
            }
        } catch  where error.code == .protectedDataUnavailable {
            throw SandboxError(
                error.code,
                "The folder '\(folder(of: path))' holds protected files that cannot be read while the device is locked ('\(shown)'); nothing was exported. Unlock the device and export again.",
                path: shown)
        } catch  where error.code == .corrupt || error.code == .newerVersion {
            notes.append(
                "'\(path)' is a protected file this device's keys do not open (\(error.message)); it was exported as it is, sealed."
            )
            return nil
        }
    }

    /// The class the plain file at `path` of a package is sealed with on import: its own class
    /// attribute, else its folder's default class; `nil` for a plain file.
    func importedClass(of path: ContainerPath, shown: String) throws(SandboxError) -> ProtectionClass? {
        if let value = try protection.source.extendedAttribute(named: ProtectionClass.attributeName, at: path) {
            guard let named = ProtectionClass(rawValue: String(decoding: value, as: UTF8.self)) else {
                throw refusal(
                    shown, "has a protection class '\(String(decoding: value, as: UTF8.self))' that does not exist")
            }
            return named
        }
        do throws(SandboxError) {
            return try protection.dataProtection.defaultProtection(forDirectoryAt: path.parent, in: protection.source)
        } catch  where error.code == .corrupt {
            throw refusal(
                path.parent.isRoot ? "" : path.parent.description, "has a default protection class that does not exist")
        }
    }

    /// Refuses an import unless the sealed file at `path` opens with this device's keys.
    func requireOpensHere(_ path: ContainerPath, listed: stat, shown: String) throws(SandboxError) {
        do throws(SandboxError) {
            try withReader(at: path, listed: listed, shown: shown) { _ throws(SandboxError) in }
        } catch  where error.code == .protectedDataUnavailable {
            throw SandboxError(
                error.code,
                "'\(shown)' is a protected file that cannot be checked while the device is locked; the package was not imported and the app's container is unchanged. Unlock the device and import again.",
                path: shown)
        } catch  where error.code == .corrupt || error.code == .newerVersion {
            throw refusal(
                shown,
                "is a protected file that this device's keys do not open (sealed on another device, or damaged)",
                remedy: "Export it in the clear on the device that sealed it, or remove it from the package.")
        }
    }

    /// Imports the plain file `input` at `path` sealed with `protectionClass`;
    /// returns the bytes sealed.
    mutating func importSealed(
        _ input: CInt, at path: ContainerPath, as protectionClass: ProtectionClass, shown: String
    ) throws(SandboxError) -> Int64 {
        if protectionClass != .completeUnlessOpen,  // written to the class's public key, locked or not
            writableClasses.insert(protectionClass).inserted,
            try !protection.dataProtection.isAvailable(protectionClass)
        {
            writableClasses.remove(protectionClass)
            throw SandboxError(
                .protectedDataUnavailable,
                "The folder '\(folder(of: path))' holds files of the protection class '\(protectionClass.rawValue)', which cannot be sealed while the device is locked; the package was not imported and the app's container is unchanged. Unlock the device and import again.",
                path: shown)
        }
        return try protection.dataProtection.writeSealed(
            protectionClass, to: path, in: protection.output, options: [.withoutOverwriting]
        ) { (buffer) throws(SandboxError) in
            guard let base = buffer.baseAddress else { return 0 }
            return try syscall("read", path: shown) { read(input, base, buffer.count) }
        }
    }

    /// `path`'s folder as a person finds it.
    private func folder(of path: ContainerPath) -> String {
        display(path.parent.isRoot ? "" : path.parent.description)
    }

    /// How much plaintext an export decrypts at a time.
    static let plaintextChunk: Int64 = 1 << 20
}
