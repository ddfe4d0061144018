import NIOCore
import Sandbox
import SandboxStore

/// Where a PUT's body goes: the core's streaming writer, or — in a folder with a default
/// protection class — Data Protection's, which seals each segment as it arrives, so an upload
/// into a protected folder never reaches the disk in the clear. Either publishes the file only at
/// ``finish()``.
enum UploadWriter {
    case plain(FileWriter)
    case protected(ProtectedFileWriter)

    /// Opens the writer of `path` in `documents`, sealed with its folder's default class when
    /// `dataProtection` is given and the folder has one.
    ///
    /// - Throws: ``/SandboxStore/SandboxError/Code/protectedDataUnavailable`` while the class cannot
    ///   be written (the device is locked); the core's codes as ``/SandboxCore/SandboxError``.
    static func open(
        _ path: ContainerPath, in documents: ConfinedRoot, dataProtection: DataProtection?, options: WriteOptions,
        queueLimit: Int
    ) throws -> UploadWriter {
        if let dataProtection, try dataProtection.defaultProtection(forDirectoryAt: path.parent, in: documents) != nil {
            return .protected(
                try dataProtection.openWriter(at: path, in: documents, options: options, queueLimit: queueLimit))
        }
        return .plain(try documents.openWriter(at: path, options: options, queueLimit: queueLimit))
    }

    func write(_ buffer: ByteBuffer) async throws {
        switch self {
        case .plain(let writer):
            try await writer.write(buffer.withUnsafeReadableBytes { DataRegions(copying: $0) })
        case .protected(let writer):
            try await writer.write(contentsOf: buffer.readableBytesView)
        }
    }

    /// Publishes the file; with `modificationTime` (since the epoch), the file has that
    /// modification time from the moment it is at its path (set on the written file itself, never
    /// on another one put at the name meanwhile).
    ///
    /// - Returns: the published file's `statx` values, read from its own descriptor (its identity,
    ///   for ``ChecksumStore``); `nil` for a protected file, which keeps no checksums.
    @discardableResult
    func finish(modificationTime: Duration? = nil) async throws -> FileAttributes? {
        switch self {
        case .plain(let writer):
            return try await writer.finishDescribed(modificationTime: modificationTime)
        case .protected(let writer):
            try await writer.close(modificationTime: modificationTime)
            return nil
        }
    }

    func discard() {
        switch self {
        case .plain(let writer): writer.discard()
        case .protected(let writer): writer.discard()
        }
    }
}
