import HTTPTypes
import Hummingbird
import NIOCore
import Sandbox
import SandboxStore

extension DAVMethods {
    /// PUT: the body streamed to an unnamed temporary beside the target (the core's atomic
    /// writer), `fsync`ed, then put at the name in one step. An upload that fails, is cut off, or
    /// runs past ``maximumUploadSize`` leaves nothing, and the file it would have replaced intact.
    ///
    /// 201 for a new file, 204 for a replaced one. Refused: a collection (405), a missing parent
    /// (409), `Content-Range` (400: partial PUT is not supported), a locked file without its token
    /// (423), a full disk (507).
    ///
    /// In a folder with a default protection class the body is sealed with that class as it
    /// arrives (``UploadWriter``); while the device is locked such an upload is refused (403) and
    /// nothing is stored.
    ///
    /// With `overwriting` false (the web page's uploads) an existing file is never replaced: one
    /// at the name when the upload starts, or put there while it ran, fails it with
    /// ``SandboxCore/SandboxError/Code/nameTaken`` and nothing stored.
    ///
    /// With `X-OC-Mtime: <Unix seconds>` (ownCloud's header: rclone, the Nextcloud clients, the
    /// share's page) the file is published with that modification time and the response says
    /// `X-OC-Mtime: accepted`; a value that is not a time, or several, is 400 before any of the body
    /// is stored (``UploadedModificationTime``).
    ///
    /// With `OC-Checksum: SHA1:<hex>` or `MD5:<hex>` (ownCloud's header: rclone with
    /// `vendor=owncloud` or `nextcloud`) the body is checked against it before it is published: a
    /// mismatch is 400 and nothing is stored (``RequestedChecksum``). Either way the body's SHA-1
    /// and MD5, computed as it streams in, are kept with the file (``ChecksumStore``).
    ///
    /// An upload whose `ticket` is cut (the share let go of the container while it ran:
    /// ``WriteGate``) stops at its next piece of body, or before it is published, with
    /// ``SandboxCore/SandboxError/Code/unavailable`` and nothing stored.
    func put(
        _ path: SharePath, request: Request, overwriting: Bool = true, ticket: WriteGate.Ticket
    ) async throws(SandboxError) -> Response {
        try requireVisibleName(path, for: .create)
        if request.headers.fieldValue(.contentRange) != nil {
            throw SandboxError(
                .malformedRequest, "PUT with Content-Range (a partial update) is not supported; send the whole file.",
                path: path.description)
        }
        let modificationTime = try UploadedModificationTime.requested(by: request.headers, path: path)
        let expectedChecksum = try RequestedChecksum.requested(by: request.headers, path: path)
        let declared = request.headers.fieldValue(.contentLength).flatMap(Int64.init)
        if let limit = maximumUploadSize, let declared, declared > limit {
            throw tooLarge(path, limit: limit)
        }
        try requireParentCollection(of: path)
        let existing = try item(at: path)
        if !overwriting, existing != nil {
            throw Self.nameTaken(path)
        }
        if existing?.isCollection == true {
            throw SandboxError(
                .methodNotAllowed, "'\(path)' is a collection; PUT replaces files only.", path: path.description)
        }
        try checkLocks(path, recursive: false, request: request)
        try checkPreconditions(request, existing: existing)

        let writer: UploadWriter
        do {
            writer = try UploadWriter.open(
                path.containerPath, in: documents, dataProtection: dataProtection,
                options: overwriting ? [.atomic, .durable] : [.atomic, .durable, .withoutOverwriting],
                queueLimit: Self.uploadQueueLimit)
        } catch {
            throw Self.uploadFailure(error, path: path)
        }
        let checksums: ContentChecksums
        let published: FileAttributes?
        do {
            checksums = try await withThrowingTaskGroup(of: ContentChecksums.Hasher.self) { group in
                var received: Int64 = 0
                var hashing = ContentChecksums.UploadHashing()
                for try await buffer in request.body {
                    received += Int64(buffer.readableBytes)
                    if let limit = maximumUploadSize, received > limit { throw tooLarge(path, limit: limit) }
                    try writes.check(ticket)
                    try await hashing.add(buffer, in: &group)
                    try await writer.write(buffer)
                }
                if let declared, received != declared {
                    throw SandboxError(
                        .malformedRequest,
                        "The upload ended after \(received) of \(declared) bytes; nothing was stored.",
                        path: path.description)
                }
                return try await hashing.finish(&group)
            }
            try expectedChecksum?.verify(checksums, path: path)
            try writes.check(ticket)
            published = try await writer.finish(modificationTime: modificationTime)
        } catch let error as SandboxError where error.code == .alreadyExists && !overwriting {
            writer.discard()
            throw Self.nameTaken(path)
        } catch let error as SandboxError where error.code == SandboxError.Code.alreadyExists && !overwriting {
            writer.discard()
            throw Self.nameTaken(path)
        } catch {
            writer.discard()
            throw Self.uploadFailure(error, path: path)
        }
        if let published {
            ChecksumStore.record(checksums, published: published, at: path, in: documents, logger: logger)
        }
        let stored = try item(at: path)
        var headers = HTTPFields()
        if let stored { headers[.eTag] = stored.entityTag }
        if modificationTime != nil { headers[.xOCMtime] = "accepted" }
        return ShareResponses.empty(existing == nil ? 201 : 204, headers: headers)
    }

    /// The bytes of an upload queued for the disk before reading its body waits: a quarter of
    /// the core's default, so a server with several uploads keeps its memory small (measured:
    /// sandbox-share-benchmark's PUT, BENCHMARKS.md).
    static let uploadQueueLimit = 1 << 20

    static func nameTaken(_ path: SharePath) -> SandboxError {
        SandboxError(
            .nameTaken, "'\(path.lastName ?? "/")' is taken in \(path.parent.displayPath); choose another name.",
            path: path.description)
    }

    private func tooLarge(_ path: SharePath, limit: Int64) -> SandboxError {
        SandboxError(
            .tooLarge,
            "The upload is larger than this share's limit of \(limit) bytes (--max-upload); nothing was stored.",
            path: path.description)
    }

    private static func uploadFailure(_ error: any Error, path: SharePath) -> SandboxError {
        switch error {
        case let error as SandboxError:
            .dataProtection(
                error, path: path, doing: "store the upload at",
                lockedMessage:
                    "'\(path.parent)' is protected and the device is locked: unlock the device and upload again; nothing was stored."
            )
        default:
            SandboxError(
                .malformedRequest, "The upload was cut off before its end; nothing was stored.", path: path.description,
                underlying: .wrapping(error))
        }
    }
}
