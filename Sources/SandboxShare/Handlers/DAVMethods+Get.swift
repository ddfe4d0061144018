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
        // One open, which describes the file it opened: the path is resolved once, and the
        // validators are those of the bytes sent.
        let file: OpenFile
        let attributes: FileAttributes
        do throws(SandboxError) {
            (file, attributes) = try documents.openFileDescribed(forReadingAt: path.containerPath)
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
        // A small file's bytes, read at once when the page cache holds them: the protected-file
        // check looks at their start instead of reading it again, and a plain file's body is sent
        // from them (one read a GET, as the engine's read would make).
        var prefetched: ByteBuffer? = nil
        if includingBody, attributes.size > 0, attributes.size <= Self.inlineReadLimit {
            var buffer = ByteBufferAllocator().buffer(capacity: Int(attributes.size))
            if FileBody.readCached(Int(attributes.size), at: 0, of: file, into: &buffer) { prefetched = buffer }
        }
        let contents: FileContents
        do throws(SandboxError) {
            contents = try await FileContents.open(
                file, size: attributes.size, path: path, dataProtection: dataProtection,
                firstBytes: prefetched?.readableBytesView)
        } catch {
            closeQuietly(file)
            throw error
        }
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
            return ShareResponses.empty(status, headers: status == 304 ? headers : HTTPFields())
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
                return ShareResponses.bytes(Array("\(error.message)\n".utf8), status: 416, headers: headers)
            }
        }
        let length = range.map { $0.upperBound - $0.lowerBound + 1 } ?? size
        if let range {
            headers.append(
                HTTPField(name: .contentRange, value: "bytes \(range.lowerBound)-\(range.upperBound)/\(size)"))
        }
        let status: HTTPResponse.Status = range == nil ? .ok : .partialContent
        if includingBody, length > 0, length <= Self.inlineReadLimit {
            // A plain file's bytes read above are its contents: the body is the range of them.
            let bytes = contents.reader == nil ? prefetched : nil
            return try await smallBody(
                contents, from: range?.lowerBound ?? 0, length: length, status: status, headers: headers, path,
                read: bytes)
        }
        headers.append(HTTPField(name: .contentLength, value: String(length)))
        guard includingBody, length > 0 else {
            closeQuietly(file)
            return Response(status: status, headers: headers)
        }
        let sent = (range?.lowerBound ?? 0)..<(range.map { $0.upperBound + 1 } ?? size)
        // A plain file on a plain-HTTP connection goes from the page cache to the socket
        // (`sendfile`); a protected one is decrypted, and TLS encrypts: those are read in chunks.
        let sender = contents.reader == nil ? FileRegionSender.current : nil
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
    /// `headers` has every field but `Content-Length`. `read`, when given, holds the whole
    /// contents already read: the body is sliced from it.
    private func smallBody(
        _ contents: FileContents, from offset: Int64, length: Int64, status: HTTPResponse.Status, headers: HTTPFields,
        _ path: SharePath, read: ByteBuffer?
    ) async throws(SandboxError) -> Response {
        defer { closeQuietly(contents.file) }
        if let read, let body = read.getSlice(at: read.readerIndex + Int(offset), length: Int(length)) {
            var headers = headers
            headers.append(HTTPField(name: .contentLength, value: String(body.readableBytes)))
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: body))
        }
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
