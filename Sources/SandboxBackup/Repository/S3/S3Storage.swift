import AsyncHTTPClient
import Crypto
import NIOHTTP1
import SandboxCore
import SandboxTransfer

/// A repository in an S3 bucket (`s3://bucket/prefix`): each object is one S3 object under the
/// prefix, named as in a local repository (`config`, `data/ab/abcd…`, `index/…`, `snapshots/…`).
///
/// The guarantees of ``RepositoryStorage`` hold because S3 publishes an object whole or not at
/// all: a PUT that is cut off leaves nothing (a cut-off multipart upload leaves only an
/// invisible, incomplete upload). A put is conditional (`If-None-Match: *`, 412 when the object
/// exists), so the lock object is taken by one client only. Objects are durable once the PUT is
/// answered, so ``synchronize()`` has nothing to do, and the backup's order — blobs, then the
/// index, then the snapshot record, the commit point — is kept by making each PUT in turn.
///
/// Objects over ``multipartThreshold`` are sent in parts of ``partSize`` (multipart upload; the
/// upload is aborted when a part fails). A multipart upload cannot be made conditional on every
/// gateway (Ceph 16 ignores `If-None-Match` on completion), so the object's absence is checked
/// with a HEAD first: fine for content-addressed data, where a racing writer stores the same
/// bytes; locks are small and never multipart.
public struct S3Storage: RepositoryStorage {
    var client: S3Client
    /// Objects larger than this are sent as a multipart upload.
    public var multipartThreshold: Int
    /// The size of each part but the last (S3 requires at least 5 MiB).
    public var partSize: Int
    /// Keys a listing asks for at a time (ListObjectsV2's `max-keys`; S3 gives at most 1,000).
    public var pageSize = 1000
    /// How many requests the library makes at once (a restore's readers, a check's, a prune's
    /// deletions, a backup's writers), each on a connection of its own to the endpoint.
    public let preferredConcurrency: Int
    /// The default of ``preferredConcurrency``: eight requests in flight hide a round trip of tens of
    /// milliseconds behind one another.
    public static let defaultConcurrency = 8
    /// How many times a request is tried before ``SandboxCore/SandboxError/Code/repositoryUnreachable``.
    public var maximumAttempts: Int {
        get { client.maximumAttempts }
        set { client.maximumAttempts = max(1, newValue) }
    }

    /// The repository at `location`.
    ///
    /// - Parameters:
    ///   - location: the bucket, prefix, endpoint and keys (``S3Location/parse(_:environment:)``).
    ///   - httpClient: the client to send with, the caller's to shut down; `nil`: one of the
    ///     storage's own, which retries nothing itself and follows no redirect, shut down by
    ///     ``close()`` (or, failing that, when the last copy of the storage is released).
    ///   - multipartThreshold: objects larger than this go as multipart uploads (default 16 MiB:
    ///     chunks are at most 8 MiB, so only large records do).
    ///   - partSize: each part's size (default 8 MiB; S3's minimum is 5 MiB).
    ///   - concurrency: ``preferredConcurrency`` (at least 1), and the connections to the endpoint
    ///     the storage's own client keeps (a client handed in keeps its own limit).
    public init(
        _ location: S3Location, httpClient: HTTPClient? = nil, multipartThreshold: Int = 16 << 20,
        partSize: Int = 8 << 20, concurrency: Int = defaultConcurrency
    ) {
        preferredConcurrency = max(1, concurrency)
        client = S3Client(location: location, client: httpClient, connections: preferredConcurrency)
        self.multipartThreshold = multipartThreshold
        self.partSize = max(partSize, 5 << 20)
    }

    /// The address, `s3://bucket/prefix`, for messages.
    public var location: String { client.location.description }

    /// The object's key, after checking the name as a local repository does.
    func key(_ name: ObjectName) throws(SandboxError) -> String {
        guard name.kind == .config || (!name.name.isEmpty && !name.name.contains("/") && !name.name.hasPrefix("."))
        else {
            throw SandboxError(.invalidArgument, "'\(name.name)' is not a repository object name.", path: name.name)
        }
        return client.location.key(name.description)
    }

    /// Checks that the bucket exists.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` naming the bucket when it does not;
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied`` for refused keys;
    ///   ``SandboxCore/SandboxError/Code/repositoryUnreachable``.
    public func checkBucket() throws(SandboxError) {
        let probe = try probeBucket()
        guard probe.status == .ok else { throw client.failure(probe, doing: "open the bucket of", key: nil) }
    }

    /// A listing of no keys: unlike HEAD, its error answers carry S3's code (`NoSuchBucket`,
    /// `SignatureDoesNotMatch`, `InvalidAccessKeyId`) for the message.
    func probeBucket() throws(SandboxError) -> S3Client.Response {
        try client.send(.GET, key: nil, query: [("list-type", "2"), ("max-keys", "0")])
    }

    /// Creates the bucket unless it exists.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/permissionDenied`` for refused keys;
    ///   ``SandboxCore/SandboxError/Code/repositoryUnreachable``.
    public func createBucketIfMissing() throws(SandboxError) {
        let probe = try probeBucket()
        if probe.status == .ok { return }
        guard probe.errorCode == "NoSuchBucket" else {
            throw client.failure(probe, doing: "open the bucket of", key: nil)
        }
        let made = try client.send(.PUT, key: nil)
        guard made.status == .ok || made.errorCode == "BucketAlreadyOwnedByYou" else {
            throw client.failure(made, doing: "create the bucket of", key: nil)
        }
    }

    /// Stores `bytes` as `name` unless an object of that name exists.
    ///
    /// - Returns: whether the object was stored (`false`: it existed).
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name that is not an object's;
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied`` for keys the endpoint refuses;
    ///   ``SandboxCore/SandboxError/Code/repositoryUnreachable`` when no answer came after the retries;
    ///   ``/SandboxCore/SandboxError/Code/io`` for another failed answer.
    public func putIfAbsent(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) -> Bool {
        let key = try key(name)
        if bytes.count > multipartThreshold {
            if try size(of: name) != nil { return false }
            try uploadInParts(bytes, key: key)
            return true
        }
        let response = try client.send(.PUT, key: key, headers: [("If-None-Match", "*")], body: bytes)
        switch response.status.code {
        case 200: return true
        case 412: return false
        default: throw client.failure(response, doing: "write", key: key)
        }
    }

    /// Stores `bytes` as `name`, replacing an object of that name.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name that is not an object's;
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied`` for keys the endpoint refuses;
    ///   ``SandboxCore/SandboxError/Code/repositoryUnreachable`` when no answer came after the retries;
    ///   ``/SandboxCore/SandboxError/Code/io`` for another failed answer.
    public func replace(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) {
        let key = try key(name)
        let response = try client.send(.PUT, key: key, body: bytes)
        guard response.status == .ok else { throw client.failure(response, doing: "write", key: key) }
    }

    /// The bytes of `name`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when there is no such object;
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name that is not an object's;
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied`` for keys the endpoint refuses;
    ///   ``SandboxCore/SandboxError/Code/repositoryUnreachable`` when no answer came after the retries;
    ///   ``/SandboxCore/SandboxError/Code/io`` for another failed answer.
    public func get(_ name: ObjectName) throws(SandboxError) -> [UInt8] {
        let key = try key(name)
        let response = try client.send(.GET, key: key)
        guard response.status == .ok else { throw client.failure(response, doing: "read", key: key) }
        return response.body
    }

    /// The bytes `range` of `name`: a GET with a `Range` header, expecting 206 and exactly the
    /// range's length (a 200 with the whole object, from an endpoint that ignores ranges, is cut).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when there is no such object;
    ///   ``SandboxCore/SandboxError/Code/repositoryDamaged`` when `range` ends past its end; as
    ///   ``get(_:)`` otherwise.
    public func get(_ name: ObjectName, range: Range<Int64>) throws(SandboxError) -> [UInt8] {
        guard !range.isEmpty else {
            let size = try size(of: name)
            guard let size else { throw SandboxError(.notFound, "'\(name)' does not exist.", path: name.description) }
            guard range.upperBound <= size else { throw name.rangePastEnd(range, size: size, in: location) }
            return []
        }
        let key = try key(name)
        let response = try client.send(
            .GET, key: key, headers: [("Range", "bytes=\(range.lowerBound)-\(range.upperBound - 1)")])
        switch response.status.code {
        case 206:
            guard response.body.count == range.count else { throw name.rangePastEnd(range, size: nil, in: location) }
            return response.body
        case 200:
            guard Int64(response.body.count) >= range.upperBound else {
                throw name.rangePastEnd(range, size: Int64(response.body.count), in: location)
            }
            return Array(response.body[Int(range.lowerBound)..<Int(range.upperBound)])
        case 416:
            throw name.rangePastEnd(range, size: nil, in: location)
        default:
            throw client.failure(response, doing: "read", key: key)
        }
    }

    /// The size of `name` in bytes, or `nil` when there is no such object.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name that is not an object's;
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied`` for keys the endpoint refuses;
    ///   ``SandboxCore/SandboxError/Code/repositoryUnreachable`` when no answer came after the retries;
    ///   ``/SandboxCore/SandboxError/Code/io`` for another failed answer.
    public func size(of name: ObjectName) throws(SandboxError) -> Int64? {
        let key = try key(name)
        let response = try client.send(.HEAD, key: key)
        if response.status == .notFound {
            // A HEAD answer has no body to tell a missing object from a missing bucket.
            try checkBucket()
            return nil
        }
        guard response.status == .ok, let length = response.headers.first(name: "content-length").flatMap(Int64.init)
        else { throw client.failure(response, doing: "look up", key: key) }
        return length
    }

    /// Every key under `<prefix>/<folder>/`, page by page (ListObjectsV2, 1,000 a page).
    func keys(under folder: String) throws(SandboxError) -> [String] {
        let prefix = client.location.key(folder) + "/"
        var keys: [String] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix), ("max-keys", String(pageSize))]
            if let token { query.append(("continuation-token", token)) }
            let response = try client.send(.GET, key: nil, query: query)
            guard response.status == .ok else { throw client.failure(response, doing: "list", key: prefix) }
            let text = response.text
            keys += try S3XML.values(of: "Key", in: text)
            token =
                try S3XML.value(of: "IsTruncated", in: text) == "true"
                ? S3XML.value(of: "NextContinuationToken", in: text) : nil
        } while token != nil
        return keys.map { String($0.dropFirst(prefix.count)) }
    }

    /// The objects of `kind`, in no particular order; interrupted writes are not listed.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name that is not an object's;
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied`` for keys the endpoint refuses;
    ///   ``SandboxCore/SandboxError/Code/repositoryUnreachable`` when no answer came after the retries;
    ///   ``/SandboxCore/SandboxError/Code/io`` for another failed answer.
    public func list(_ kind: ObjectKind) throws(SandboxError) -> [ObjectName] {
        switch kind {
        case .config:
            return try size(of: .config) != nil ? [.config] : []
        case .data:
            return try keys(under: kind.rawValue).compactMap { (relative) -> ObjectName? in
                let parts = relative.split(separator: "/")
                guard parts.count == 2, parts[0] == parts[1].prefix(2), Hex.isLowercase(String(parts[1]), count: 64)
                else { return nil }
                return ObjectName(.data, String(parts[1]))
            }
        default:
            return try keys(under: kind.rawValue).filter { !$0.isEmpty && !$0.contains("/") && !$0.hasPrefix(".") }
                .map { ObjectName(kind, $0) }
        }
    }

    /// Removes `name`; removing a missing object is not an error.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` for a name that is not an object's;
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied`` for keys the endpoint refuses;
    ///   ``SandboxCore/SandboxError/Code/repositoryUnreachable`` when no answer came after the retries;
    ///   ``/SandboxCore/SandboxError/Code/io`` for another failed answer.
    public func delete(_ name: ObjectName) throws(SandboxError) {
        let key = try key(name)
        let response = try client.send(.DELETE, key: key)
        guard response.status == .noContent || response.status == .ok || response.status == .notFound else {
            throw client.failure(response, doing: "remove", key: key)
        }
    }

    /// Nothing to do: an S3 object is durable once its PUT is answered.
    ///
    /// - Throws: nothing.
    public func synchronize() throws(SandboxError) {}

    /// Shuts down the storage's own HTTP client (not one handed to ``init(_:httpClient:multipartThreshold:partSize:concurrency:)``),
    /// closing its connections; later requests fail with
    /// ``SandboxCore/SandboxError/Code/repositoryUnreachable``.
    public func close() async {
        await client.http.shutdown()
    }

    /// A multipart upload of `bytes` to `key`, aborted when any step fails.
    func uploadInParts(_ bytes: [UInt8], key: String) throws(SandboxError) {
        let started = try client.send(.POST, key: key, query: [("uploads", "")])
        guard started.status == .ok, let uploadID = try S3XML.value(of: "UploadId", in: started.text) else {
            throw client.failure(started, doing: "start a multipart upload of", key: key)
        }
        do throws(SandboxError) {
            var parts: [(Int, String)] = []
            var offset = 0
            while offset < bytes.count {
                let end = min(offset + partSize, bytes.count)
                let number = parts.count + 1
                let response = try client.send(
                    .PUT, key: key, query: [("partNumber", String(number)), ("uploadId", uploadID)],
                    body: Array(bytes[offset..<end]))
                guard response.status == .ok, let etag = response.headers.first(name: "etag") else {
                    throw client.failure(response, doing: "upload part \(number) of", key: key)
                }
                parts.append((number, etag))
                offset = end
            }
            let body =
                "<CompleteMultipartUpload>"
                + parts.map { "<Part><PartNumber>\($0.0)</PartNumber><ETag>\(S3XML.escaped($0.1))</ETag></Part>" }
                .joined() + "</CompleteMultipartUpload>"
            let done = try client.send(.POST, key: key, query: [("uploadId", uploadID)], body: Array(body.utf8))
            // S3 may answer 200 with an <Error> body when completing fails late; Ceph 16 answers an
            // empty <ETag>, so the ETag is not relied on.
            guard done.status == .ok, done.errorCode == nil else {
                throw client.failure(done, doing: "complete the multipart upload of", key: key)
            }
        } catch {
            _ = try? client.send(.DELETE, key: key, query: [("uploadId", uploadID)])  // best effort; `error` propagates
            throw error
        }
    }

    /// How many multipart uploads under the repository's prefix were started and neither
    /// completed nor aborted (a process killed mid-upload leaves one; a bucket lifecycle rule
    /// `AbortIncompleteMultipartUpload` removes them).
    ///
    /// - Throws: as the other requests.
    public func pendingMultipartUploads() throws(SandboxError) -> Int {
        let prefix = client.location.key("")
        let response = try client.send(.GET, key: nil, query: [("uploads", ""), ("prefix", prefix)])
        guard response.status == .ok else { throw client.failure(response, doing: "list the uploads of", key: prefix) }
        return try S3XML.values(of: "UploadId", in: response.text).count
    }
}
