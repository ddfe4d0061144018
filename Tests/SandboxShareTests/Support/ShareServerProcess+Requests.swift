import Foundation

/// Who a raw request says it is.
enum Credentials: Sendable {
    /// `sandbox` and the pairing code.
    case valid
    /// No `Authorization` header.
    case none
    /// This exact header value.
    case header(String)
}

extension ShareServerProcess {
    /// Sends `METHOD TARGET HTTP/1.1` byte for byte over a raw socket (the target is not
    /// normalised), with `Host` (the bound address unless given), the credentials, `headers`,
    /// `Content-Length` when there is a body, and `Connection: close`; returns the response.
    func send(
        _ method: String,
        _ target: String,
        headers: [(String, String)] = [],
        body: [UInt8] = [],
        credentials: Credentials = .valid,
        host: String? = nil,
        timeout: Int = 30
    ) async throws -> RawResponse {
        let request = rawRequest(method, target, headers: headers, body: body, credentials: credentials, host: host)
        let port = port
        return try await onOwnThread {
            let connection = try RawConnection(port: port, timeout: timeout)
            defer { connection.close() }
            try connection.send(request)
            return try connection.receiveResponse(toHead: method == "HEAD")
        }
    }

    func send(
        _ method: String, _ target: String, headers: [(String, String)] = [], text: String,
        credentials: Credentials = .valid
    ) async throws -> RawResponse {
        try await send(method, target, headers: headers, body: Array(text.utf8), credentials: credentials)
    }

    /// The bytes of a request (see ``send(_:_:headers:body:credentials:host:timeout:)``); with a
    /// `Content-Length` or `Transfer-Encoding` in `headers`, no length of its own.
    func rawRequest(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8] = [],
        credentials: Credentials = .valid, host: String? = nil, close: Bool = true
    ) -> [UInt8] {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: \(host ?? self.host)\r\n"
        switch credentials {
        case .valid: head += "Authorization: \(authorization)\r\n"
        case .none: break
        case .header(let value): head += "Authorization: \(value)\r\n"
        }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        // The body's length unless the caller frames the body itself (a body sent separately, or
        // chunked): two lengths would make the request malformed, refused before its body is read.
        let framed = headers.contains { ["content-length", "transfer-encoding"].contains($0.0.lowercased()) }
        if !framed, !body.isEmpty || ["PUT", "POST"].contains(method) { head += "Content-Length: \(body.count)\r\n" }
        if close { head += "Connection: close\r\n" }
        return Array((head + "\r\n").utf8) + body
    }

    /// Writes `text` to `Documents/relative` on the host, making its folders.
    func plant(_ relative: String, _ text: String = "planted") throws {
        let url = URL(fileURLWithPath: documents(relative))
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(text.utf8).write(to: url)
    }

    /// What `Documents/relative` holds on the host, or `nil` when there is nothing there.
    func contents(_ relative: String) -> String? {
        FileManager.default.contents(atPath: documents(relative)).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Every entry in Documents, recursively, relative to it (sorted), but for the Inbox that
    /// `sandbox create` makes and the clients never see.
    func documentsTree() -> [String] {
        let all = FileManager.default.subpaths(atPath: documents) ?? []  // no folder: nothing in it
        return all.filter { $0 != "Inbox" && !$0.hasPrefix("Inbox/") }.sorted()
    }
}
