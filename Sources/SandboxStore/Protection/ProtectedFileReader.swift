import Crypto
import Sandbox
import SystemPackage

/// A protected file opened for reading a range at a time, from the descriptor it was opened with
/// (so every range comes from the same file, whatever replaces its path meanwhile): what streams
/// a protected file's contents — the share's GET and ZIP — without holding it whole in memory.
/// Only the 64 KiB segments that hold a range are read and authenticated.
///
/// The caller keeps the ``/SandboxCore/OpenFile`` open while it reads, and closes it.
public struct ProtectedFileReader: Sendable {
    /// The file's class, from its header.
    public let protection: ProtectionClass
    /// The bytes of plaintext the file holds.
    public let contentLength: Int64
    private let header: ProtectedFileFormat.Header
    private let fileKey: SymmetricKey
    private let sealedSize: Int
    private let descriptor: FileDescriptor
    private let path: String

    /// The bytes `range` of the contents (fewer past their end), decrypted.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` when a segment of the range fails authentication
    ///   (no byte of it is returned), ``SandboxCore/SandboxError/Code/invalidValue`` for a negative `range`,
    ///   the core's `io` for a failed read.
    public func read(_ range: Range<Int64>) throws(SandboxError) -> [UInt8] {
        guard range.lowerBound >= 0 else {
            throw SandboxError(.invalidValue, "The range \(range) of '\(path)' starts before the file.")
        }
        let descriptor = self.descriptor
        let path = self.path
        return try ProtectedFileFormat.open(
            size: sealedSize, header: header, fileKey: fileKey, path: path,
            range: Int(range.lowerBound)..<Int(range.upperBound)
        ) { (offset, buffer) throws(SandboxError) in
            try DataProtection.readFully(descriptor, into: buffer, at: offset, path: path)
        }
    }

    fileprivate init(
        header: ProtectedFileFormat.Header, fileKey: SymmetricKey, sealedSize: Int, descriptor: FileDescriptor,
        path: String
    ) {
        protection = header.protection
        contentLength = Int64(SegmentLayout(size: sealedSize, header: header).plaintextSize)
        self.header = header
        self.fileKey = fileKey
        self.sealedSize = sealedSize
        self.descriptor = descriptor
        self.path = path
    }
}

extension DataProtection {
    /// The bytes a protected file starts with, which tell it from a plain one.
    public static var protectedFileMagic: [UInt8] { ProtectedFileFormat.magic }
    /// The size of the smallest protected file (an empty one has a header and a tag at least).
    public static var smallestProtectedFileSize: Int64 {
        Int64(ProtectedFileFormat.fixedHeaderSize + ProtectedFileFormat.tagSize)
    }

    /// A reader of the open `file` when it is a protected file; `nil` when it is not (its bytes
    /// are its contents).
    ///
    /// - Parameters:
    ///   - file: a regular file opened for reading; kept open by the caller while the reader is used.
    ///   - path: names the file in messages.
    /// - Throws: ``SandboxCore/SandboxError/Code/protectedDataUnavailable`` while its class key is not unlocked,
    ///   ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged header or wrapped key,
    ///   ``SandboxCore/SandboxError/Code/newerVersion``, and the core's codes.
    public func openReader(for file: OpenFile, path: String) throws(SandboxError) -> ProtectedFileReader? {
        guard let (header, size) = try Self.header(of: file, path: path) else { return nil }
        let fileKey = try fileKey(of: header, path: path)
        let descriptor = try file.withUnsafeDescriptor { $0 }
        return ProtectedFileReader(
            header: header, fileKey: fileKey, sealedSize: size, descriptor: descriptor, path: path)
    }

    /// The bytes of plaintext the open `file` holds when it is a protected file, read from its
    /// header (no key is needed: it is known while the device is locked); `nil` when it is not.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/corrupt`` for a damaged header, ``SandboxCore/SandboxError/Code/newerVersion``,
    ///   and the core's codes.
    public static func contentLength(of file: OpenFile, path: String) throws(SandboxError) -> Int64? {
        guard let (header, size) = try header(of: file, path: path) else { return nil }
        return Int64(SegmentLayout(size: size, header: header).plaintextSize)
    }

    /// The header of the open `file` and its size on disk; `nil` when it is not a protected file.
    private static func header(
        of file: OpenFile, path: String
    ) throws(SandboxError) -> (ProtectedFileFormat.Header, Int)? {
        let (start, size) = (
            Array(try file.read(upToCount: ProtectedFileFormat.maximumHeaderSize, atOffset: 0)), try file.size()
        )
        guard ProtectedFileFormat.isProtected(start) else { return nil }
        return (try ProtectedFileFormat.header(of: start, path: path), Int(size))
    }
}
