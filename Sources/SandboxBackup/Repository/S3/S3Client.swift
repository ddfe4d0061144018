import AsyncHTTPClient
import Crypto
import Foundation
import NIOCore
import NIOHTTP1
import SandboxCore
import SandboxTransfer

/// Signed S3 requests with bounded retries, made synchronously; several threads may send at once,
/// each request on a connection of the client's pool (kept alive and reused).
///
/// ``RepositoryStorage`` is synchronous (a backup is one thread of blocking file reads), so each
/// request runs on async-http-client's event loop and the calling thread waits for its future.
/// That thread is one the library owns: the public entry points (``Backup``, ``Restore``,
/// ``Checker``, ``Pruner``, ``Repository``, ``RepositoryAddress``) are `async` and run their work on
/// threads of their own (`OwnedThread.run`), so the wait never holds a thread of Swift's
/// cooperative pool, and never an event loop (NIO refuses a `wait()` there).
///
/// Retries: connection failures, timeouts, 429 and 5xx answers are retried up to
/// ``maximumAttempts`` times, waiting 0.2 s, 0.4 s, 0.8 s … (at most 5 s, with jitter) between;
/// every request S3Storage makes is idempotent (a PUT of the same bytes, a GET, a DELETE).
struct S3Client: Sendable {
    let location: S3Location
    let signer: SigV4Signer
    /// The client requests go out on, and whether ``S3Storage/close()`` shuts it down.
    let http: HTTPClientOwner
    var client: HTTPClient { http.client }
    var maximumAttempts = 6
    /// One request's deadline: a part of at most a few MiB on a slow link.
    var requestTimeout: TimeAmount = .seconds(120)

    /// The settings of the client a repository makes for itself: connections are not re-tried by
    /// the client itself (``send(_:key:query:headers:body:)`` retries, boundedly), a connection
    /// attempt gives up after 10 s, nothing is decompressed and no redirect is followed (a
    /// redirect would carry a signature made for another URL). Up to `connections` connections to
    /// the endpoint are opened and kept alive, one for each request the storage makes at once.
    static func httpSettings(connections: Int) -> HTTPClientSettings {
        HTTPClientSettings(
            connectTimeout: .seconds(10), readTimeout: .seconds(120), maximumRedirects: 0,
            retriesConnectionEstablishment: false, connectionsPerHost: connections)
    }

    /// A client for `location`, sending with `client` (the caller's, never shut down here), or,
    /// when `nil`, with one of its own, of `connections` connections, that ``S3Storage/close()``
    /// shuts down.
    init(location: S3Location, client: HTTPClient? = nil, connections: Int = 8) {
        self.location = location
        signer = SigV4Signer(credentials: location.credentials, region: location.region, service: "s3")
        http = HTTPClientOwner(borrowing: client, otherwise: Self.httpSettings(connections: connections))
    }

    struct Response: Sendable {
        var status: HTTPResponseStatus
        var headers: HTTPHeaders
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        /// S3's error code (`NoSuchKey`, `SignatureDoesNotMatch` …) from an error body.
        var errorCode: String? { S3XML.errorField("Code", in: text) }
        var errorMessage: String? { S3XML.errorField("Message", in: text) }
    }

    /// Sends one request for `key` (`nil`: the bucket itself) and returns the answer, whatever its
    /// status, after retrying what can be retried.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/repositoryUnreachable`` when no answer came after
    ///   the retries, or one 429/5xx answer after another.
    func send(
        _ method: HTTPMethod, key: String?, query: [(String, String)] = [], headers extra: [(String, String)] = [],
        body: [UInt8] = []
    ) throws(SandboxError) -> Response {
        let path = "/" + location.bucket + (key.map { "/" + $0 } ?? "")
        let encodedPath = SigV4Signer.encode(path, keepingSlash: true)
        let encodedQuery = query.map {
            SigV4Signer.encode($0.0, keepingSlash: false) + "=" + SigV4Signer.encode($0.1, keepingSlash: false)
        }.joined(separator: "&")
        let url = location.endpoint + encodedPath + (query.isEmpty ? "" : "?" + encodedQuery)
        let hostPort = String(location.endpoint.drop { $0 != "/" }.dropFirst(2))
        let payloadHash = Hex.string(SHA256.hash(data: body))
        var lastFailure = ""
        for attempt in 0..<maximumAttempts {
            if attempt > 0 { Self.pause(before: attempt) }
            let signed = signer.sign(
                SigV4Signer.Request(
                    method: method.rawValue, path: path, query: query,
                    headers: [("host", hostPort), ("x-amz-content-sha256", payloadHash)] + extra,
                    payloadHash: payloadHash),
                at: Date())
            var headers = HTTPHeaders(extra + [("x-amz-content-sha256", payloadHash)] + signed.headers)
            if !body.isEmpty || method == .PUT || method == .POST {
                headers.replaceOrAdd(name: "content-length", value: String(body.count))
            }
            let response: HTTPClient.Response
            do {
                let request = try HTTPClient.Request(
                    url: url, method: method, headers: headers, body: body.isEmpty ? nil : .bytes(body))
                response = try client.execute(request: request, deadline: .now() + requestTimeout).wait()
            } catch {
                lastFailure = "\(error)"
                continue
            }
            let answer = Response(
                status: response.status, headers: response.headers,
                body: response.body.map { Array($0.readableBytesView) } ?? [])
            if answer.status.code == 429 || (500...599).contains(answer.status.code) {
                lastFailure = "HTTP \(answer.status.code) \(answer.errorCode ?? "")"
                continue
            }
            return answer
        }
        throw SandboxError(
            .repositoryUnreachable,
            "The S3 endpoint '\(location.endpoint)' did not answer for '\(location)' after \(maximumAttempts) attempts (last: \(lastFailure)). Check S3_ENDPOINT and that the gateway is running, then run the command again.",
            path: location.description)
    }

    /// Waits before retry `attempt` (1, 2, …) on the calling thread: 0.2 s doubling, at most 5 s,
    /// plus up to a quarter more at random so clients that failed together do not retry together.
    static func pause(before attempt: Int) {
        let base = Backoff(initial: .milliseconds(200), maximum: .seconds(5)).delay(retry: attempt - 1)
        let pause = Backoff.scaled(base, by: Double.random(in: 1.0...1.25), atMost: .seconds(7))
        usleep(useconds_t(pause.clampedMicroseconds))
    }

    /// The error for an answer that is not a success: refused keys, a missing bucket, or another
    /// status, each naming the object and what to do.
    func failure(_ response: Response, doing what: String, key: String?) -> SandboxError {
        let object = key.map { "s3://\(location.bucket)/\($0)" } ?? location.description
        let detail = [response.errorCode, response.errorMessage].compactMap { $0 }.joined(separator: ": ")
        let said = detail.isEmpty ? "HTTP \(response.status.code)" : "HTTP \(response.status.code) \(detail)"
        switch (response.status.code, response.errorCode) {
        case (403, _), (_, "InvalidAccessKeyId"), (_, "SignatureDoesNotMatch"), (_, "AccessDenied"):
            return SandboxError(
                .permissionDenied,
                "The S3 endpoint '\(location.endpoint)' refused to \(what) '\(object)' (\(said)). Check S3_ACCESS_KEY and S3_SECRET_KEY (or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY), S3_REGION, and the bucket's permissions.",
                path: object)
        case (404, "NoSuchBucket"):
            return SandboxError(
                .notFound,
                "The bucket '\(location.bucket)' does not exist at '\(location.endpoint)'. Create it, or back up to '\(location)', which creates it.",
                path: object)
        case (404, _):
            return SandboxError(.notFound, "There is no object '\(object)' at '\(location.endpoint)'.", path: object)
        default:
            return SandboxError(
                .io, "The S3 endpoint '\(location.endpoint)' could not \(what) '\(object)' (\(said)).", path: object)
        }
    }
}
