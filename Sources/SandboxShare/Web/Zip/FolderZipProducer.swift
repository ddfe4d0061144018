import Foundation
import NIOCore
import Sandbox
import SandboxStore
import SystemPackage

/// The synchronous half of a ``FolderZip``: walks the folder and fills buffers with the archive's
/// next bytes. Every call blocks on the file system, so it runs on the I/O engine's threads, one
/// call at a time.
///
/// The walk is depth first, one directory listed at a time (sorted by name, so that an archive of
/// an unchanged folder is always the same bytes); what it holds is the listings of the folders on
/// the way down and the archive's central directory, never file data beyond the buffer it fills.
struct FolderZipProducer: Sendable {
    /// What is left to put in the archive: folders to list, files to open.
    private struct Item: Sendable {
        let path: ContainerPath
        /// The item as the share names it, for the hidden rule and messages (a name that is not
        /// UTF-8 is decoded with replacement characters here; the archive keeps its bytes).
        let sharePath: SharePath
        /// The entry's name in the archive.
        let zipName: [UInt8]
        let isDirectory: Bool
        let attributes: FileAttributes?
    }

    /// The file whose bytes are being copied.
    private struct CurrentFile: Sendable {
        /// Its contents: decrypted when it is a protected file.
        let contents: FileContents
        let sharePath: SharePath
        var offset: Int64 = 0
        /// The size measured at opening: the most bytes copied, so that a file still being written
        /// does not keep the archive growing (and its entry keeps the header it was begun with).
        let limit: Int64
        var crc = CRC32()
    }

    private let documents: ConfinedRoot
    /// The device's Data Protection, for the protected files: `nil` for a folder that is no container's.
    private let dataProtection: DataProtection?
    private var encoder = ZipStreamEncoder()
    private var pending: [Item]
    private var current: CurrentFile?
    private var finished = false
    /// The time zone of the entries' DOS times, looked up once.
    private let timeZone = TimeZone.current

    /// Bytes gathered before a buffer is handed over.
    static let chunkSize = FileBody.chunkSize

    init(
        documents: ConfinedRoot, dataProtection: DataProtection?, folder: SharePath, archiveRoot: [UInt8],
        attributes: FileAttributes
    ) {
        self.documents = documents
        self.dataProtection = dataProtection
        pending = [
            Item(
                path: folder.containerPath, sharePath: folder, zipName: archiveRoot, isDirectory: true,
                attributes: attributes)
        ]
    }

    /// The archive's next bytes (about ``chunkSize``, more when a central directory is appended
    /// whole), or `nil` once all have been produced.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` for a file-system failure other than an item that vanished or was
    ///   replaced by a symlink (those are left out).
    mutating func next() throws(SandboxError) -> ByteBuffer? {
        guard !finished else { return nil }
        var buffer = ByteBufferAllocator().buffer(capacity: Self.chunkSize + 1024)
        while buffer.readableBytes < Self.chunkSize {
            if current != nil {
                try copy(into: &buffer)
            } else if let item = pending.popLast() {
                if item.isDirectory { try list(item, into: &buffer) } else { try open(item, into: &buffer) }
            } else {
                buffer.writeBytes(encoder.finish())
                finished = true
                break
            }
        }
        return buffer
    }

    /// Closes the file being copied, if any (the transfer stopped early).
    mutating func close() {
        if let current { closeQuietly(current.contents.file) }
        current = nil
    }

    /// Lists `item` and writes its entry; its visible files and folders become pending, in order.
    private mutating func list(_ item: Item, into buffer: inout ByteBuffer) throws(SandboxError) {
        let entries: [DirectoryEntry]
        do throws(SandboxError) {
            entries = try documents.contentsOfDirectory(
                at: item.path, prefetchingAttributes: true)
        } catch  where Self.isGone(error) {
            return
        } catch  where error.code == .nameTooLong {
            entries = []  // its items are too deep for a container path to name: the folder is kept, empty
        } catch {
            throw .fileSystem(error, path: item.sharePath, doing: "list")
        }
        let modified = item.attributes?.modificationDate ?? Date()
        let permissions = UInt16(item.attributes?.permissions.rawValue ?? 0o755)
        buffer.writeBytes(
            encoder.directory(named: item.zipName, modified: dosTime(modified), permissions: permissions))
        var children: [Item] = []
        for entry in entries where entry.type == .regular || entry.type == .directory {
            let bytes = entry.fileName.bytes
            let sharePath = SharePath(
                checkedNames: item.sharePath.names + [String(decoding: bytes, as: UTF8.self)], endsWithSlash: false)
            if sharePath.isHidden { continue }
            let isDirectory = entry.type == .directory
            children.append(
                Item(
                    path: entry.path, sharePath: sharePath,
                    zipName: item.zipName + bytes + (isDirectory ? [UInt8(ascii: "/")] : []),
                    isDirectory: isDirectory, attributes: entry.attributes))
        }
        children.sort { $0.zipName.lexicographicallyPrecedes($1.zipName) }
        pending.append(contentsOf: children.reversed())
    }

    /// Opens the file `item` and writes its local header; one that vanished or became something
    /// else since it was listed is left out. A protected file's entry holds its plaintext.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/forbidden`` for a protected file whose class key is locked
    ///   (locked since ``FolderZip`` checked): the archive is cut short.
    private mutating func open(_ item: Item, into buffer: inout ByteBuffer) throws(SandboxError) {
        let file: OpenFile
        let attributes: FileAttributes
        do throws(SandboxError) {
            file = try documents.openFile(forReadingAt: item.path)
        } catch  where Self.isGone(error) || error.code == .isADirectory {
            return
        } catch {
            throw .fileSystem(error, path: item.sharePath, doing: "open")
        }
        let contents: FileContents
        do throws(SandboxError) {
            do throws(SandboxError) {
                attributes = try file.attributes()
            } catch {
                throw .fileSystem(error, path: item.sharePath, doing: "open")
            }
            contents = try FileContents.opened(
                file, size: attributes.size, path: item.sharePath, dataProtection: dataProtection)
        } catch {
            closeQuietly(file)
            throw error
        }
        buffer.writeBytes(
            encoder.beginFile(
                named: item.zipName, modified: dosTime(attributes.modificationDate),
                permissions: UInt16(attributes.permissions.rawValue), expectedSize: UInt64(contents.length)))
        current = CurrentFile(contents: contents, sharePath: item.sharePath, limit: contents.length)
    }

    /// Copies the current file's next bytes into `buffer`, up to ``chunkSize`` in all; at the end
    /// of the file (or of its size when opened), writes its data descriptor and closes it.
    private mutating func copy(into buffer: inout ByteBuffer) throws(SandboxError) {
        guard var file = current else { return }
        let wanted = Int(min(Int64(max(Self.chunkSize - buffer.readableBytes, 0)), file.limit - file.offset))
        var read = 0
        if wanted > 0 {
            do throws(SandboxError) {
                read = try file.contents.read(wanted, at: file.offset, into: &buffer, file.sharePath)
            } catch {
                close()
                throw error
            }
            buffer.withUnsafeReadableBytes { bytes in
                file.crc.update(UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - read)...]))
            }
            file.offset += Int64(read)
        }
        if read < wanted || file.offset >= file.limit {
            closeQuietly(file.contents.file)
            buffer.writeBytes(encoder.endFile(crc: file.crc.checksum, size: UInt64(file.offset)))
            current = nil
        } else {
            current = file
        }
    }

    /// `instant` as the wall-clock time of the server's time zone, which is how extractors read
    /// a DOS time back.
    private func dosTime(_ instant: Date) -> DOSDateTime {
        DOSDateTime(instant, secondsFromGMT: timeZone.secondsFromGMT(for: instant))
    }

    /// Whether `error` says the item is no longer there to archive: removed, or replaced by a
    /// symlink (which the Documents root refuses to follow) or by something not a folder.
    private static func isGone(_ error: SandboxError) -> Bool {
        [.notFound, .notADirectory, .symlinkLoop, .notARegularFile].contains(error.code)
    }
}
