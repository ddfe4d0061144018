import NIOCore
import Sandbox
import SandboxStore

/// What a shared file's contents are read through: the open file's own bytes, or — for a file
/// Data Protection sealed (``/SandboxStore/ProtectedFileReader``) — its plaintext, decrypted a
/// range of 64 KiB segments at a time from the descriptor that was opened, as the app reads it.
/// GET, HEAD, the page's download and the folder ZIP all read through here, so a client gets back
/// what it uploaded, never the ciphertext on disk.
struct FileContents: Sendable {
    /// The open file; the caller closes it.
    let file: OpenFile
    /// The reader of a protected file; `nil` for a plain one.
    let reader: ProtectedFileReader?
    /// The bytes the contents hold: the file's size, or a protected file's plaintext length.
    let length: Int64

    /// The plain contents of `file`, `size` bytes.
    init(plain file: OpenFile, size: Int64) {
        self.file = file
        reader = nil
        length = size
    }

    private init(file: OpenFile, reader: ProtectedFileReader) {
        self.file = file
        self.reader = reader
        length = reader.contentLength
    }

    /// The contents of `file` (`size` bytes on disk), from a connection's event loop: a file too
    /// small to be protected, or whose first bytes (read only when the page cache holds them) are
    /// not a protected file's, is plain at once; otherwise its header is read and its key
    /// unwrapped on the I/O engine. `firstBytes`, when given, are the file's first bytes already
    /// read (a small GET reads the whole file at once): they are looked at instead.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/forbidden`` while the file's class key is locked; as
    ///   ``SandboxError/dataProtection(_:path:doing:lockedMessage:)`` otherwise.
    static func open(
        _ file: OpenFile, size: Int64, path: SharePath, dataProtection: DataProtection?,
        firstBytes: ByteBufferView? = nil
    ) async throws(SandboxError) -> FileContents {
        if let plain = knownPlain(file, size: size, dataProtection: dataProtection, firstBytes: firstBytes) {
            return plain
        }
        do {
            return try await IOEngine.shared.run { () throws(SandboxError) -> FileContents in
                try opened(file, size: size, path: path, dataProtection: dataProtection)
            }
        } catch let error as SandboxError where error.code == .interrupted {
            throw .fileSystem(error, path: path, doing: "open")  // the engine stopped, or the request was cancelled
        } catch let error as SandboxError {
            throw error  // the handler's own, already answered
        } catch {
            throw SandboxError(.internalError, "Could not open '\(path)': \(error).", path: path.description)
        }
    }

    /// The plain contents of `file` (`size` bytes on disk) when that is known without waiting: a
    /// file too small to be protected, or whose first bytes (`firstBytes`, or read only when the
    /// page cache holds them) are not a protected file's; `nil` when the file may be protected
    /// (``open(_:size:path:dataProtection:firstBytes:)`` then reads its header on the engine).
    static func knownPlain(
        _ file: OpenFile, size: Int64, dataProtection: DataProtection?, firstBytes: ByteBufferView?
    ) -> FileContents? {
        guard dataProtection != nil, size >= DataProtection.smallestProtectedFileSize else {
            return FileContents(plain: file, size: size)
        }
        let magic = DataProtection.protectedFileMagic
        if let firstBytes, firstBytes.count >= magic.count {
            return firstBytes.prefix(magic.count).elementsEqual(magic) ? nil : FileContents(plain: file, size: size)
        }
        var start = ByteBufferAllocator().buffer(capacity: magic.count)
        guard FileBody.readCached(magic.count, at: 0, of: file, into: &start),
            !start.readableBytesView.elementsEqual(magic)
        else { return nil }
        return FileContents(plain: file, size: size)
    }

    /// The contents of `file` (`size` bytes on disk), read on the caller's thread (the I/O engine's).
    ///
    /// - Throws: as ``open(_:size:path:dataProtection:)``.
    static func opened(
        _ file: OpenFile, size: Int64, path: SharePath, dataProtection: DataProtection?
    ) throws(SandboxError) -> FileContents {
        guard let dataProtection, size >= DataProtection.smallestProtectedFileSize else {
            return FileContents(plain: file, size: size)
        }
        do throws(SandboxError) {
            guard let reader = try dataProtection.openReader(for: file, path: path.description) else {
                return FileContents(plain: file, size: size)
            }
            return FileContents(file: file, reader: reader)
        } catch {
            throw .dataProtection(
                error, path: path, doing: "read",
                lockedMessage:
                    "'\(path)' is protected and the device is locked: unlock the device and download it again; nothing was sent."
            )
        }
    }

    /// Reads up to `count` bytes of the contents at `offset` (on the caller's thread, one that may
    /// block) straight into `buffer`'s writable bytes — decrypted for a protected file.
    ///
    /// - Returns: the bytes read: fewer than `count` only at the end of the contents.
    /// - Throws: ``/SandboxCore/SandboxError`` with the file system's failure, or a damaged protected file's.
    func read(
        _ count: Int, at offset: Int64, into buffer: inout ByteBuffer, _ path: SharePath
    ) throws(SandboxError)
        -> Int
    {
        guard let reader else { return try FileBody.read(count, at: offset, of: file, into: &buffer, path) }
        do throws(SandboxError) {
            let bytes = try reader.read(offset..<offset + Int64(count))
            buffer.writeBytes(bytes)
            return bytes.count
        } catch {
            throw .dataProtection(
                error, path: path, doing: "read",
                lockedMessage: "'\(path)' is protected and the device is locked: unlock the device.")
        }
    }
}
