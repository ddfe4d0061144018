import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Sandbox
import ServiceLifecycle

extension WebPage {
    /// One item of a listing, as the page shows it.
    struct ListedItem: Encodable {
        let name: String
        let folder: Bool
        let size: Int64
        let modified: String
    }

    /// `GET /.sandbox/s/<scope>/api/list?path=/Folder&limit=200&after=<cursor>`: a page of the
    /// folder's visible items in ``ListingOrder`` (``FolderPage``: memory bounded by the page, not
    /// the folder), at most `limit` (default and most: ``FolderPage/maximumLimit``), and `next`, the
    /// cursor to pass as `after` for the following page, while items follow.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` for a missing or hidden folder,
    ///   ``SandboxCore/SandboxError/Code/conflict`` for a file,
    ///   ``SandboxCore/SandboxError/Code/malformedRequest`` for a `limit` that is not a positive
    ///   number or a cursor the server does not give.
    func list(_ request: Request) throws(SandboxError) -> Response {
        struct Listing: Encodable {
            let path: String
            let items: [ListedItem]
            let next: String?
        }
        let path = try Self.path(in: request)
        let query = request.uri.query ?? ""
        var limit = FolderPage.maximumLimit
        if let given = FormFields.value(of: "limit", in: query) {
            guard let number = Int(given), number > 0 else {
                throw SandboxError(
                    .malformedRequest, "The listing's limit '\(given.prefix(20))' is not a positive number.")
            }
            limit = number
        }
        let cursor = try FormFields.value(of: "after", in: query).map { (value) throws(SandboxError) in
            try ListingOrder.Key(cursor: value)
        }
        let folder = try methods.existingItem(at: path)
        guard folder.isCollection else {
            throw SandboxError(.conflict, "'\(path)' is a file, not a folder.", path: path.description)
        }
        let page: FolderPage
        do throws(SandboxError) {
            page = try FolderPage.read(path, in: methods.documents, after: cursor, limit: limit)
        } catch  where error.code == .notFound {
            page = FolderPage(keys: [], next: nil, peakBuffered: 0)  // removed while we looked
        } catch {
            throw .fileSystem(error, path: path, doing: "list")
        }
        var items: [ListedItem] = []
        items.reserveCapacity(page.keys.count)
        for key in page.keys {
            // Removed, or replaced by a symlink, since the folder was read: not listed.
            guard let item = try methods.item(at: path.appending(String(decoding: key.name, as: UTF8.self))) else {
                continue
            }
            items.append(
                ListedItem(
                    name: item.path.lastName ?? "", folder: item.isCollection,
                    size: item.isCollection ? 0 : methods.contentLength(of: item),
                    modified: PropertyDates.creationDate(item.attributes.modificationDate)))
        }
        return WebResponses.json(Listing(path: path.description, items: items, next: page.next?.cursor))
    }

    /// `GET /.sandbox/s/<scope>/api/storage`: what Documents holds and what the device has free (`du`, `df`).
    func storage() throws(SandboxError) -> Response {
        struct Storage: Encodable {
            let documentsBytes: Int64
            let freeBytes: Int64
            let totalBytes: Int64
        }
        do throws(SandboxError) {
            let used = try methods.documents.recursiveSize(at: .root)?.allocatedBytes ?? 0
            let volume = try methods.documents.volumeValues()
            return WebResponses.json(
                Storage(documentsBytes: used, freeBytes: volume.availableBytes, totalBytes: volume.capacity))
        } catch {
            throw .fileSystem(error, path: "/", doing: "measure")
        }
    }

    /// `PUT /.sandbox/s/<scope>/api/upload?path=/Folder/name.ext`: the body streamed to disk (WebDAV's PUT,
    /// never replacing), missing folders created, and a taken name numbered (`name 2.ext`). An
    /// upload that fails (too large, cut off, out of space) stores nothing and removes the folders
    /// it created, as far as they are still empty and no other upload writes into them
    /// (``UploadFolders``). `ticket` is the upload's admission (``WriteGate``): once cut, the
    /// upload stops and stores nothing.
    func upload(_ request: Request, ticket: WriteGate.Ticket) async throws(SandboxError) -> Response {
        try requireWritable()
        let asked = try Self.path(in: request)
        try methods.requireVisibleName(asked, for: .create)
        let folder = asked.parent
        uploads.begin(folder)
        var created: [SharePath] = []
        do throws(SandboxError) {
            let response = try await store(request, at: asked, creatingFolders: &created, ticket: ticket)
            uploads.end(folder)
            return response
        } catch {
            let removed = uploads.end(folder, removing: created, in: methods.documents, locks: methods.locks)
            if !removed.isEmpty {
                methods.logger.info("upload of \(asked) failed: removed the folders it made, \(removed)")
            }
            throw error
        }
    }

    /// The upload's work: its folders (each one made is added to `created`), then the file.
    private func store(
        _ request: Request, at asked: SharePath, creatingFolders created: inout [SharePath], ticket: WriteGate.Ticket
    ) async throws(SandboxError) -> Response {
        struct Stored: Encodable {
            let path: String
            let size: Int64
        }
        try createFolders(asked.parent, request: request, created: &created)
        var lastError: SandboxError?
        // A name taken when the upload starts is numbered; one taken while it ran fails it.
        for number in 1...Self.maximumNumberedNames {
            let candidate = try Self.numbered(asked, number)
            if try methods.item(at: candidate) != nil { continue }
            do throws(SandboxError) {
                _ = try await methods.put(candidate, request: request, overwriting: false, ticket: ticket)
            } catch {
                lastError = error
                break
            }
            let stored = try methods.existingItem(at: candidate)
            return WebResponses.json(
                Stored(path: candidate.description, size: stored.attributes.size), status: .created)
        }
        throw lastError
            ?? SandboxError(
                .nameTaken, "'\(asked.lastName ?? "")' and \(Self.maximumNumberedNames - 1) numbered names are taken.",
                path: asked.description)
    }

    /// `POST /.sandbox/s/<scope>/api/mkdir {"path": "/Folder/New"}`.
    func makeFolder(_ request: Request) async throws(SandboxError) -> Response {
        struct Asked: Decodable { let path: String }
        try requireWritable()
        let path = try Self.shown(try await Self.json(Asked.self, from: request).path)
        if try methods.item(at: path) != nil { throw DAVMethods.nameTaken(path) }
        try methods.createCollection(path, request: request)
        return WebResponses.json(["path": path.description], status: .created)
    }

    /// `POST /.sandbox/s/<scope>/api/move {"from": "/a.txt", "to": "/Folder/b.txt"}`: rename and/or move,
    /// never replacing.
    func move(_ request: Request) async throws(SandboxError) -> Response {
        struct Asked: Decodable {
            let from: String
            let to: String
        }
        try requireWritable()
        let asked = try await Self.json(Asked.self, from: request)
        let source = try Self.shown(asked.from)
        let destination = try Self.shown(asked.to)
        try methods.requireVisibleName(source, for: .delete)
        try methods.requireVisibleName(destination, for: .create)
        let item = try methods.existingItem(at: source)
        guard destination != source else { return WebResponses.json(["path": source.description]) }
        if item.isCollection, destination.isDescendant(of: source) {
            throw SandboxError(
                .conflict, "'\(source)' cannot be moved inside itself ('\(destination)').", path: source.description)
        }
        if try methods.item(at: destination) != nil { throw DAVMethods.nameTaken(destination) }
        do throws(SandboxError) {
            _ = try methods.relocate(
                source, item, to: destination, move: true, depth: .infinity, overwrite: false, request: request)
        } catch  where error.code == .preconditionFailed {
            throw DAVMethods.nameTaken(destination)  // taken meanwhile
        }
        return WebResponses.json(["path": destination.description])
    }

    /// `POST /.sandbox/s/<scope>/api/delete {"path": "/a.txt"}`: a file, or a folder with all it holds.
    func delete(_ request: Request) async throws(SandboxError) -> Response {
        struct Asked: Decodable { let path: String }
        try requireWritable()
        let path = try Self.shown(try await Self.json(Asked.self, from: request).path)
        _ = try methods.delete(path, request: request)
        return ShareResponses.empty(204)
    }

    /// `GET /.sandbox/s/<scope>/download?path=/a.txt`: WebDAV's GET, always as an attachment (a
    /// protected file decrypted, 403 while the device is locked).
    func download(_ request: Request, eventLoop: any EventLoop) async throws(SandboxError) -> Response {
        let path = try Self.path(in: request)
        var response = try await methods.get(
            path, request: request, includingBody: request.method == .get, on: eventLoop)
        response.headers[.contentDisposition] = ContentDisposition.attachment(path.lastName ?? "download")
        return response
    }

    /// `GET /.sandbox/s/<scope>/zip?path=/Folder`: the folder as a ZIP archive, streamed as it is
    /// made; 403 while it holds a protected file the locked device cannot open.
    func zip(_ request: Request, eventLoop: any EventLoop) async throws(SandboxError) -> Response {
        let path = try Self.path(in: request)
        let archive = try FolderZip(
            documents: methods.documents, dataProtection: methods.dataProtection, folder: path, eventLoop: eventLoop)
        try await FolderZip.requireReadable(path, methods: methods)
        var headers = HTTPFields()
        headers[.contentType] = "application/zip"
        headers[.contentDisposition] = ContentDisposition.attachment(archive.attachmentName)
        headers[.cacheControl] = "no-store"
        let logger = methods.logger
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                do {
                    try await archive.write(to: &writer)
                } catch {
                    logger.warning("ZIP of \(path): stopped: \(error)")
                    throw error
                }
            })
    }

    /// `GET /.sandbox/s/<scope>/events`: the live view's Server-Sent Events (``ChangeFeed``).
    func events() throws(SandboxError) -> Response {
        let listener = try feed.listen()
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-store"
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                // The stream never ends by itself: a server asked to stop ends it, or the stop
                // would wait for every open page.
                try await withGracefulShutdownHandler {
                    for await message in listener.messages {
                        try await writer.write(ByteBuffer(string: message))
                    }
                } onGracefulShutdown: {
                    listener.end()
                }
                try await writer.finish(nil)
            })
    }

    static let maximumNumberedNames = 1000

    /// `path` with its last name numbered (`name 2.ext`), as the Inbox numbers its deliveries.
    private static func numbered(_ path: SharePath, _ number: Int) throws(SandboxError) -> SharePath {
        guard number > 1, let name = path.lastName else { return path }
        do throws(SandboxError) {
            let numbered = try FileName(name).numbered(number)
            return path.parent.appending(numbered.string ?? name)
        } catch {
            throw SandboxError(.malformedRequest, "'\(name)' is not a name a file can have.", path: path.description)
        }
    }

    /// Creates `folder` and the folders above it that are missing (a folder upload's structure),
    /// adding each one it made to `created`, outermost first.
    private func createFolders(
        _ folder: SharePath, request: Request, created: inout [SharePath]
    ) throws(SandboxError) {
        var path = SharePath.root
        for name in folder.names {
            path = path.appending(name)
            if let item = try methods.item(at: path) {
                guard item.isCollection else {
                    throw SandboxError(
                        .nameTaken, "'\(path)' is a file, so a folder of that name cannot be made.",
                        path: path.description)
                }
                continue
            }
            do throws(SandboxError) {
                try methods.createCollection(path, request: request)
                created.append(path)
            } catch  where error.code == .methodNotAllowed {
                continue  // made meanwhile, by a parallel upload of the same folder
            }
        }
    }

    private func requireWritable() throws(SandboxError) {
        if methods.readOnly { throw SandboxError(.forbidden, "This share is read-only: nothing can be changed.") }
    }

    /// The `path` query item, percent-decoded once (`encodeURIComponent`'s form) and checked.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` without one, or for a bad path;
    ///   ``/SandboxCore/SandboxError/Code/notFound`` for a hidden one.
    static func path(in request: Request) throws(SandboxError) -> SharePath {
        guard let query = request.uri.query, let value = FormFields.value(of: "path", in: query) else {
            throw SandboxError(.malformedRequest, "Say which item with ?path=/… (encoded with encodeURIComponent).")
        }
        return try shown(value)
    }

    /// `plain` as a path the page shows: checked, and refused as missing when hidden (the page
    /// never lists nor changes a hidden item, Finder's `._name` and `.DS_Store` included).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` for a bad path, ``/SandboxCore/SandboxError/Code/notFound``
    ///   for a hidden one.
    static func shown(_ plain: String) throws(SandboxError) -> SharePath {
        let path = try SharePath(plainPath: plain)
        if path.isHidden { throw SandboxError(.notFound, "Nothing is shared at '\(path)'.", path: path.description) }
        return path
    }

    /// The request's JSON body (at most 16 KiB) as `type`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` for a body that is not that JSON.
    static func json<T: Decodable>(_ type: T.Type, from request: Request) async throws(SandboxError) -> T {
        let body = try await DAVMethods.smallBody(of: request, limit: 16 << 10, kind: "JSON body")
        do {
            return try JSONDecoder().decode(type, from: Data(body))
        } catch {
            throw SandboxError(.malformedRequest, "The request's JSON is not what this address takes: \(error)")
        }
    }
}
