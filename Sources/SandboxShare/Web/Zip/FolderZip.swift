import Hummingbird
import NIOCore
import Sandbox
import SandboxStore
import Synchronization

/// A Documents folder sent as a ZIP archive made while it is sent: no temporary copy, no
/// Content-Length, memory bounded by a few chunks and the central directory (about 50 bytes plus
/// the name per item) whatever the folder's size.
///
/// The archive holds the folder itself (`Folder/`, `Documents/` for the shared folder) and
/// everything the share shows beneath it: the Inbox and names starting with `.` are left out
/// (``SharePath/isHidden``, the rule every WebDAV method applies), symlinks are never followed nor
/// stored, and FIFOs, sockets and devices are left out. Each file is opened once and copied in
/// 1 MiB chunks (``FileBody/read(_:at:of:into:_:)``) on the I/O engine, up to the size it had when
/// opened: a file that shrinks meanwhile gets the bytes actually read (its data descriptor says
/// how many), one that vanishes before it is opened is left out. A protected file (Data Protection)
/// is stored as the app reads it, decrypted (``FileContents``); a folder holding one the device
/// cannot open now is refused before anything is sent (``requireReadable(_:methods:)``). A folder whose items lie deeper
/// than a container path can name (4095 bytes) is stored empty.
///
/// Like ``FileBody``, each chunk is read while the last one is written, and after each write the
/// connection's event loop is waited for, so that a fast reader cannot queue chunks the socket
/// has not taken.
struct FolderZip: Sendable {
    /// The folder, as the request named it.
    let folder: SharePath
    /// The connection's event loop, where the writes run.
    let eventLoop: any EventLoop
    let engine: IOEngine = .shared
    private let producer: ProducerBox

    /// Prepares the archive of `folder` in `documents`, checking before anything is sent that the
    /// share shows a folder there.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when nothing the share shows is at `folder` (missing,
    ///   hidden, a symlink); ``SandboxCore/SandboxError/Code/conflict`` when it is a file; ``/SandboxCore/SandboxError`` with
    ///   the file system's failure otherwise.
    init(
        documents: ConfinedRoot, dataProtection: DataProtection?, folder: SharePath, eventLoop: any EventLoop
    ) throws(SandboxError) {
        let attributes: FileAttributes?
        if folder.isHidden {
            attributes = nil
        } else {
            do throws(SandboxError) {
                attributes = try documents.attributes(at: folder.containerPath, followingSymlink: false)
            } catch  where error.code == .notADirectory || error.code == .symlinkLoop {
                attributes = nil
            } catch {
                throw .fileSystem(error, path: folder, doing: "look at")
            }
        }
        guard let attributes, attributes.type == .directory || attributes.type == .regular else {
            throw SandboxError(.notFound, "Nothing is shared at '\(folder)'.", path: folder.description)
        }
        guard attributes.type == .directory else {
            throw SandboxError(
                .conflict, "'\(folder)' is a file, not a folder: download it as it is.", path: folder.description)
        }
        self.folder = folder
        self.eventLoop = eventLoop
        let root = Array((folder.lastName ?? Self.rootFolderName).utf8) + [UInt8(ascii: "/")]
        producer = ProducerBox(
            FolderZipProducer(
                documents: documents, dataProtection: dataProtection, folder: folder, archiveRoot: root,
                attributes: attributes))
    }

    /// What the archive of the shared folder itself is called.
    static let rootFolderName = "Documents"

    /// The file name to offer for the download: `Folder.zip`, `Documents.zip` for the shared folder.
    var attachmentName: String { (folder.lastName ?? Self.rootFolderName) + ".zip" }

    /// Writes the archive to `writer`, then finishes it. Call once.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with the file system's failure (an item that vanishes meanwhile is
    ///   left out, not a failure); what `writer` throws. Either way the archive is cut short, which
    ///   a client sees as a download that failed (the archive has no central directory).
    func write(to writer: inout any ResponseBodyWriter) async throws {
        defer { producer.close() }
        var pending = try await chunk()
        while let current = pending {
            async let following = chunk()
            try await writer.write(current)
            try await eventLoop.submit {}.get()  // the write has run: the writer knows if the socket is full
            pending = try await following
        }
        try await writer.finish(nil)
    }

    /// The archive's next bytes, produced on one of the engine's threads.
    private func chunk() async throws -> ByteBuffer? {
        let producer = self.producer
        return try await engine.run { () throws -> ByteBuffer? in try producer.next() }
    }
}

/// The producer, shared between the writing task and the engine's threads, used by one at a time.
private final class ProducerBox: Sendable {
    private let state: Mutex<FolderZipProducer>

    init(_ producer: sending FolderZipProducer) {
        state = Mutex(producer)
    }

    func next() throws(SandboxError) -> ByteBuffer? {
        try state.withLock { (producer) throws(SandboxError) -> ByteBuffer? in try producer.next() }
    }

    func close() {
        state.withLock { $0.close() }
    }
}
