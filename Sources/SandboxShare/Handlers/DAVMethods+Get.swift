import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import Sandbox

extension DAVMethods {
    /// Bodies up to this size are sent in one write, read at once: on the request's own thread
    /// (its connection's event loop) when the page cache holds them, which takes microseconds, less
    /// than the two thread hops of a read on the I/O engine; on the engine otherwise.
    static let inlineReadLimit: Int64 = 64 << 10

    /// GET and HEAD of a file: validators (`ETag`, `Last-Modified`), conditional requests
    /// (`If-Match`, `If-None-Match`, `If-Modified-Since`, `If-Unmodified-Since`), one byte range
    /// (`Range`, `If-Range`), sent from the open file: with `sendfile` on a plain-HTTP
    /// connection (``FileRegionSender``), in chunks otherwise (``FileBody``).
    ///
    /// A protected file (Data Protection) is served as the app reads it: its plaintext, decrypted
    /// a segment range at a time (``FileContents``), `Content-Length` and ranges in plaintext bytes,
    /// the validators those of the file on disk; while its class key is locked, 403 and no byte.
    ///
    /// A file is never rendered as a page of this origin: `Content-Security-Policy: sandbox` on
    /// every file, and `Content-Disposition: attachment` for the types a browser would run
    /// (HTML, SVG, XML).
    ///
    /// `OC-Checksum: SHA1:<hex>` when the file has current checksums (``ChecksumStore``: an
    /// upload's, or a PROPFIND's); a GET never hashes.
    func get(
        _ path: SharePath, request: Request, includingBody: Bool, on eventLoop: any EventLoop
    ) async throws(SandboxError) -> Response {
        let (file, attributes) = try openForGet(path)
        let prefetched = includingBody ? Self.prefetch(file, size: attributes.size) : nil
        let contents: FileContents
        do throws(SandboxError) {
            contents = try await FileContents.open(
                file, size: attributes.size, path: path, dataProtection: dataProtection,
                firstBytes: prefetched?.readableBytesView)
        } catch {
            closeQuietly(file)
            throw error
        }
        let pending: PendingBody
        switch answer(
            contents, attributes: attributes, read: prefetched, path, request: request, includingBody: includingBody)
        {
        case .complete(let response): return response.response
        case .pending(let body): pending = body
        }
        let (status, length, range) = (pending.status, pending.length, pending.range)
        var headers = pending.headers
        if length <= Self.inlineReadLimit {
            return try await smallBody(
                contents, from: range?.lowerBound ?? 0, length: length, status: status, headers: headers, path)
        }
        headers.append(HTTPField(name: .contentLength, value: String(length)))
        let sent = (range?.lowerBound ?? 0)..<(range.map { $0.upperBound + 1 } ?? contents.length)
        // A plain file on a plain-HTTP connection goes from the page cache to the socket
        // (`sendfile`); a protected one is decrypted, and TLS encrypts: those are read in chunks.
        let sender = contents.reader == nil && FileRegionSender.isEnabled ? FileRegionSender.current : nil
        let logger = self.logger
        let body = ResponseBody(contentLength: Int(length)) { writer in
            defer { closeQuietly(file) }
            do {
                if let sender {
                    try await sender.send(file, range: sent, path: path)
                    try await writer.finish(nil)
                } else {
                    try await FileBody(contents: contents, range: sent, path: path, eventLoop: eventLoop).write(
                        to: &writer)
                }
            } catch {
                // The head is sent: all that can be done is to cut the connection short, which the
                // Content-Length tells the client.
                logger.warning("GET \(path): stopped before its \(length) bytes were sent: \(error)")
                throw error
            }
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// Opens the file at `path` for a GET or HEAD, described: the path is resolved once, and the
    /// validators are those of the bytes sent.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/methodNotAllowed`` for a folder,
    ///   ``SandboxCore/SandboxError/Code/notFound`` for nothing, a symlink or a special file
    ///   anywhere on the path; the file system's failure otherwise.
    func openForGet(_ path: SharePath) throws(SandboxError) -> (OpenFile, FileAttributes) {
        do throws(SandboxError) {
            return try documents.openFileDescribed(forReadingAt: path.containerPath)
        } catch {
            switch error.code {
            case .isADirectory:
                throw SandboxError(
                    .methodNotAllowed, "'\(path)' is a collection: list it with PROPFIND.", path: path.description)
            case .notFound, .notADirectory, .symlinkLoop, .notARegularFile:
                throw SandboxError(.notFound, "Nothing is shared at '\(path)'.", path: path.description)
            default:
                throw .fileSystem(error, path: path, doing: "open")
            }
        }
    }

    /// A small file's bytes (at most ``inlineReadLimit``), read at once when the page cache holds
    /// them, else `nil`: the protected-file check looks at their start instead of reading it
    /// again, and a plain file's body is sent from them (one read a GET, as the engine's would make).
    static func prefetch(_ file: OpenFile, size: Int64) -> ByteBuffer? {
        guard size > 0, size <= inlineReadLimit else { return nil }
        var buffer = ByteBufferAllocator().buffer(capacity: Int(size))
        return FileBody.readCached(Int(size), at: 0, of: file, into: &buffer) ? buffer : nil
    }

    /// What a GET or HEAD of an open file answers without waiting.
    enum FileAnswer {
        /// The whole response (the file closed): a failed precondition or range, a HEAD, an empty
        /// body, or a plain file's body sliced from the bytes already read.
        case complete(ImmediateResponse)
        /// A body still to be read (the file open).
        case pending(PendingBody)
    }

    /// A response whose body is still to be read: `headers` has every field but `Content-Length`.
    struct PendingBody {
        var status: HTTPResponse.Status
        var headers: HTTPFields
        /// The bytes asked for, `nil` for all of them.
        var range: ClosedRange<Int64>?
        /// How many bytes the body has (more than 0).
        var length: Int64
    }

    /// The response to the GET or HEAD `request` of the open file `contents` (described by
    /// `attributes`), as far as it is known without waiting; `read`, when given, holds the whole
    /// file's bytes (``prefetch(_:size:)``). The one place where a file's headers, conditional
    /// requests and ranges are decided, for the event loop's own answers
    /// (``immediateResponse(to:)``) and Hummingbird's alike.
    func answer(
        _ contents: FileContents, attributes: FileAttributes, read: ByteBuffer?, _ path: SharePath, request: Request,
        includingBody: Bool
    ) -> FileAnswer {
        let file = contents.file
        let size = contents.length
        let etag = EntityTag.of(attributes)
        let modified = attributes.modificationDate
        // Each field appended once (setting one by name would first look for it), the constant
        // ones made once.
        var headers = HTTPFields()
        headers.reserveCapacity(10)
        headers.append(HTTPField(name: .eTag, value: etag))
        headers.append(HTTPField(name: .lastModified, value: HTTPDate.format(modified)))
        headers.append(Self.acceptByteRanges)
        if contents.reader == nil,
            let checksums = ChecksumStore.stored(on: file, attributes: attributes, logger: logger)
        {
            headers.append(HTTPField(name: .ocChecksum, value: checksums.headerValue))
        }
        let type = ContentType.of(path.lastName ?? "")
        headers.append(HTTPField(name: .contentType, value: type.type))
        headers.append(Self.sandboxPolicy)
        if type.isActive {
            headers.append(
                HTTPField(name: .contentDisposition, value: ContentDisposition.attachment(path.lastName ?? "download")))
        }

        if let status = Preconditions.evaluate(request.headers, etag: etag, modified: modified, isRead: true) {
            closeQuietly(file)
            return .complete(.empty(status, headers: status == 304 ? headers : HTTPFields()))
        }
        var range: ClosedRange<Int64>? = nil
        if Preconditions.rangeApplies(request.headers, etag: etag, modified: modified) {
            do throws(SandboxError) {
                if case .partial(let bounds) = try RangeSelection.select(request.headers.fieldValue(.range), size: size)
                {
                    range = bounds
                }
            } catch {
                closeQuietly(file)
                var headers = HTTPFields()
                headers[.contentRange] = "bytes */\(size)"
                return .complete(.bytes(Array("\(error.message)\n".utf8), status: 416, headers: headers))
            }
        }
        let length = range.map { $0.upperBound - $0.lowerBound + 1 } ?? size
        if let range {
            headers.append(
                HTTPField(name: .contentRange, value: "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"))
        }
        let status: HTTPResponse.Status = range == nil ? .ok : .partialContent
        if includingBody, length > 0 {
            // A plain file's bytes read already are its contents: the body is the range of them.
            guard contents.reader == nil, let read,
                let body = read.getSlice(at: read.readerIndex + Int(range?.lowerBound ?? 0), length: Int(length))
            else { return .pending(PendingBody(status: status, headers: headers, range: range, length: length)) }
            closeQuietly(file)
            headers.append(HTTPField(name: .contentLength, value: String(body.readableBytes)))
            return .complete(ImmediateResponse(status: status, headers: headers, body: body))
        }
        closeQuietly(file)
        headers.append(HTTPField(name: .contentLength, value: String(length)))
        return .complete(ImmediateResponse(status: status, headers: headers, body: nil))
    }
}

extension DAVMethods {
    /// `Accept-Ranges: bytes`, on every file.
    static let acceptByteRanges = HTTPField(name: .acceptRanges, value: "bytes")
    /// `Content-Security-Policy: sandbox`, on every file: never a page of this origin.
    static let sandboxPolicy = HTTPField(name: .contentSecurityPolicy, value: "sandbox")
}

/// Closes `file`; a failure to close a file opened for reading loses nothing, so it is not reported.
func closeQuietly(_ file: OpenFile) {
    do { try file.close() } catch {}
}

extension DAVMethods {
    /// The response for a body of `length` bytes (at most ``inlineReadLimit``) read at once;
    /// `headers` has every field but `Content-Length`.
    private func smallBody(
        _ contents: FileContents, from offset: Int64, length: Int64, status: HTTPResponse.Status, headers: HTTPFields,
        _ path: SharePath
    ) async throws(SandboxError) -> Response {
        defer { closeQuietly(contents.file) }
        var buffer = ByteBufferAllocator().buffer(capacity: Int(length))
        // A protected file's segments are opened on the engine: decrypting is not for an event loop.
        if contents.reader != nil || !FileBody.readCached(Int(length), at: offset, of: contents.file, into: &buffer) {
            buffer.clear()
            buffer = try await FileBody.readOnEngine(Int(length), at: offset, of: contents, into: buffer, path)
        }
        var headers = headers
        // The file may have shrunk since it was measured: send what was read, and say so.
        headers.append(HTTPField(name: .contentLength, value: String(buffer.readableBytes)))
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: buffer))
    }
}
