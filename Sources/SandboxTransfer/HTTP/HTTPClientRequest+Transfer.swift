import AsyncHTTPClient
import NIOHTTP1

extension HTTPClientRequest {
    /// The request every transfer starts from, download or data task: a GET of `url` with the
    /// caller's `headers`, `Accept-Encoding: identity` (the client does not decompress: a body is
    /// handed over as sent, and ranges and size limits count those bytes) and a `User-Agent` unless
    /// the caller set one.
    static func transfer(url: String, headers: [String: String]) -> HTTPClientRequest {
        var request = HTTPClientRequest(url: url)
        request.method = .GET
        for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
        request.headers.replaceOrAdd(name: "Accept-Encoding", value: "identity")
        if request.headers["User-Agent"].isEmpty {
            request.headers.add(name: "User-Agent", value: "sandbox-transfer/1")
        }
        return request
    }
}
