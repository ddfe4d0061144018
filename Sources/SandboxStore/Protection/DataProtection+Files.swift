import Crypto
import Foundation
import Glibc
import Sandbox
import SystemPackage

extension DataProtection {
    /// Writes `bytes` to `path` in `root` (a container's), encrypted with `protection`, atomically:
    /// readers see the old file or the new one, never a part (``/SandboxCore/WriteOptions/atomic`` is implied).
    ///
    /// - Parameters:
    ///   - bytes: the new contents.
    ///   - path: the file to create or replace, relative to `root`.
    ///   - root: the container's root (``/Sandbox/Container/root``).
    ///   - protection: the class; `nil`: the default class of the file's folder
    ///     (``setDefaultProtection(_:forDirectoryAt:in:)``), and a plain, unencrypted file when the
    ///     folder has none.
    ///   - options: add ``/SandboxCore/WriteOptions/durable`` or ``/SandboxCore/WriteOptions/withoutOverwriting`` as for
    ///     ``/SandboxCore/ConfinedRoot/writeContents(_:to:options:)``.
    /// - Throws: ``SandboxCore/SandboxError/Code/protectedDataUnavailable`` for a ``ProtectionClass/complete``
    ///   or ``ProtectionClass/untilFirstUserAuthentication`` file while its key is not unlocked
    ///   (``ProtectionClass/completeUnlessOpen`` files can always be written), and the core's codes.
    public func write(
        _ bytes: [UInt8], to path: ContainerPath, in root: ConfinedRoot, protection: ProtectionClass? = nil,
        options: WriteOptions = [.atomic]
    ) throws(SandboxError) {
        var chosen = protection
        if chosen == nil { chosen = try defaultProtection(forDirectoryAt: path.parent, in: root) }
        guard let protection = chosen else {
            return try root.writeContents(bytes, to: path, options: options)
        }
        let sealer = try makeSealer(protection: protection, path: path.description)
        var sealFailure: SandboxError?
        do throws(SandboxError) {
            // Each stripe of segments is sealed straight into a reused buffer and written to the
            // file being published: no sealed copy of the whole file is ever made.
            try root.writeFile(at: path, options: options.union(.atomic)) { fd throws(SandboxError) in
                do throws(SandboxError) {
                    try bytes.withUnsafeBytes { plaintext in
                        Result { () throws(SandboxError) in
                            try SealedFileStream.write(plaintext, sealer: sealer, to: fd, path: path.description)
                        }
                    }.get()
                } catch {
                    sealFailure = error
                    throw SandboxError(.io, "Sealing '\(path)' failed.", path: path.description)
                }
            }
        } catch {
            throw sealFailure ?? error
        }
        try markProtected(protection, at: path, in: root)
    }

    /// The contents of the file at `path`: decrypted when it is protected, as they are otherwise.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/protectedDataUnavailable`` while its class key is not unlocked,
    ///   ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged header, wrapped key or segment (no byte of it is
    ///   returned), `file-too-large` past `maximumSize` (of plaintext), and the core's codes.
    public func readContents(
        of path: ContainerPath, in root: ConfinedRoot, maximumSize: Int = ConfinedRoot.defaultMaximumReadSize
    ) throws(SandboxError) -> [UInt8] {
        try readContents(of: path, in: root, range: nil, maximumSize: maximumSize)
    }

    /// The bytes `range` of the contents of the file at `path` (fewer past its end), decrypted when
    /// it is protected: only the 64 KiB segments that hold them are read and authenticated.
    ///
    /// - Parameters:
    ///   - path: the file, relative to `root`.
    ///   - root: the container's root.
    ///   - range: offsets in the plaintext; must not be negative.
    /// - Throws: as ``readContents(of:in:maximumSize:)``, and ``SandboxCore/SandboxError/Code/invalidValue`` for a
    ///   negative `range`.
    public func readContents(
        of path: ContainerPath, in root: ConfinedRoot, range: Range<Int>
    ) throws(SandboxError)
        -> [UInt8]
    {
        guard range.lowerBound >= 0 else {
            throw SandboxError(.invalidValue, "The range \(range) of '\(path)' starts before the file.")
        }
        return try readContents(of: path, in: root, range: range, maximumSize: range.count)
    }

    private func readContents(
        of path: ContainerPath, in root: ConfinedRoot, range: Range<Int>?, maximumSize: Int
    ) throws(SandboxError) -> [UInt8] {
        let start = try root.withFile(at: path) { file throws(SandboxError) in
            Array(try file.read(upToCount: ProtectedFileFormat.maximumHeaderSize, atOffset: 0))
        }
        guard ProtectedFileFormat.isProtected(start) else {
            guard let range else { return try root.readContents(of: path, maximumSize: maximumSize) }
            return try root.withFile(at: path) { file throws(SandboxError) in
                Array(try file.read(upToCount: range.count, atOffset: Int64(range.lowerBound)))
            }
        }
        let header = try ProtectedFileFormat.header(of: start, path: path.description)
        let fileKey = try fileKey(of: header, path: path.description)
        let file = try root.openFile(forReadingAt: path)
        defer { try? file.close() }  // read-only: a failed close loses nothing, and the result stands
        let (size, descriptor) = (Int(try file.size()), try file.withUnsafeDescriptor { $0 })
        let segments = (maximumSize + header.segmentSize - 1) / header.segmentSize + 1
        guard range != nil || size <= header.bytes.count + maximumSize + segments * ProtectedFileFormat.tagSize else {
            throw SandboxError(
                SandboxError.Code.fileTooLarge,
                "The protected file '\(path)' holds more than \(maximumSize) bytes; read it with a larger limit.",
                path: path.description)
        }
        return try ProtectedFileFormat.open(
            size: size, header: header, fileKey: fileKey, path: path.description, range: range
        ) {
            (offset, buffer) throws(SandboxError) in
            try Self.readFully(descriptor, into: buffer, at: offset, path: path.description)
        }
    }

    /// The class of the file at `path`, from its header; `nil` for an unprotected file.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged header, and the core's codes.
    public func protectionClass(of path: ContainerPath, in root: ConfinedRoot) throws(SandboxError) -> ProtectionClass?
    {
        let start = try root.withFile(at: path) { file throws(SandboxError) in
            Array(try file.read(upToCount: ProtectedFileFormat.maximumHeaderSize, atOffset: 0))
        }
        guard ProtectedFileFormat.isProtected(start) else { return nil }
        return try ProtectedFileFormat.header(of: start, path: path.description).protection
    }

    /// Sets (or with `nil` removes) the class that new files written in the folder at `path` get
    /// when ``write(_:to:in:protection:options:)`` is given none. Kept as the folder's
    /// ``ProtectionClass/attributeName`` extended attribute.
    ///
    /// - Throws: the core's codes (`unsupported` without extended attributes).
    public func setDefaultProtection(
        _ protection: ProtectionClass?, forDirectoryAt path: ContainerPath, in root: ConfinedRoot
    ) throws(SandboxError) {
        if let protection {
            try root.setExtendedAttribute(
                named: ProtectionClass.attributeName, to: Array(protection.rawValue.utf8), at: path)
        } else {
            try root.removeExtendedAttribute(named: ProtectionClass.attributeName, at: path)
        }
    }

    /// The default class of the folder at `path`, or `nil`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for an attribute that names no class.
    public func defaultProtection(
        forDirectoryAt path: ContainerPath, in root: ConfinedRoot
    ) throws(SandboxError)
        -> ProtectionClass?
    {
        let value: [UInt8]?
        do {
            value = try root.extendedAttribute(named: ProtectionClass.attributeName, at: path)
        } catch  where error.code == .unsupported || error.code == .notFound {
            return nil
        } catch {
            throw error
        }
        guard let value else { return nil }
        guard let protection = ProtectionClass(rawValue: String(decoding: value, as: UTF8.self)) else {
            throw SandboxError(
                .corrupt,
                "The folder '\(path)' has a default protection class '\(String(decoding: value, as: UTF8.self))' that does not exist; set it again.",
                path: path.description)
        }
        return protection
    }

    /// A new file key, wrapped for `protection` in a new header, and the sealer of its segments.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/protectedDataUnavailable`` while the class key is not unlocked
    ///   (never for ``ProtectionClass/completeUnlessOpen``, whose public key is enough).
    func makeSealer(protection: ProtectionClass, path: String) throws(SandboxError) -> SegmentSealer {
        let segmentSize = ProtectedFileFormat.defaultSegmentSize
        let prefix = SymmetricKey(size: .bits128).withUnsafeBytes { Array($0.prefix(7)) }
        let fixed = ProtectedFileFormat.fixedHeader(
            protection: protection, segmentSize: segmentSize, noncePrefix: prefix,
            wrappedKeySize: FileKeyWrapping.wrappedSize(for: protection))
        let fileKey = SymmetricKey(size: .bits256)
        let wrapped: [UInt8]
        if protection == .completeUnlessOpen {
            wrapped = try FileKeyWrapping.wrap(
                fileKey, toPublicKey: completeUnlessOpenPublicKey(), authenticating: fixed)
        } else {
            let classKey = SymmetricKey(data: try classKey(for: protection, path: path))
            wrapped = try FileKeyWrapping.wrap(fileKey, with: classKey, authenticating: fixed)
        }
        return SegmentSealer(header: fixed + wrapped, fileKey: fileKey, segmentSize: segmentSize)
    }

    func fileKey(of header: ProtectedFileFormat.Header, path: String) throws(SandboxError) -> SymmetricKey {
        let classKey = try classKey(for: header.protection, path: path)
        guard let fileKey = FileKeyWrapping.unwrap(header, classKey: classKey) else {
            throw ProtectedFileFormat.corrupt(
                path, "its wrapped file key fails authentication (damaged, or from another device)")
        }
        return fileKey
    }

    /// `pread` until `buffer` is full or the file ends; returns how many bytes were read.
    static func readFully(
        _ descriptor: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, at offset: Int, path: String
    ) throws(SandboxError) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        var done = 0
        while done < buffer.count {
            let count = pread(descriptor.rawValue, base + done, buffer.count - done, off_t(offset + done))
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else {
                throw SandboxError(.io, "Reading '\(path)' failed: \(String(cString: strerror(errno))).", path: path)
            }
            if count == 0 { break }
            done += count
        }
        return done
    }
}
