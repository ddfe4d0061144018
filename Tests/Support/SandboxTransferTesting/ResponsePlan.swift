import NIOCore
import NIOHTTP1

/// The answer to one request: the head, the body bytes, and how to send them.
struct ResponsePlan: Sendable {
    var head: HTTPResponseHead
    var body: ArraySlice<UInt8>
    var dropAfter: Int?
    var stallAfter: Int?
    var chunkSize: Int
    var chunkDelayMilliseconds: Int

    static func make(for resource: FaultResource?, requestIndex: Int, headers: HTTPHeaders) -> ResponsePlan {
        guard let resource else { return error(404) }
        if let status = resource.status { return error(status) }
        if requestIndex < resource.failures.count {
            var plan = error(resource.failures[requestIndex])
            if let retryAfter = resource.retryAfter { plan.head.headers.add(name: "Retry-After", value: retryAfter) }
            return plan
        }
        if let location = resource.redirectTo {
            var plan = error(302)
            plan.head.headers.add(name: "Location", value: location)
            return plan
        }
        if let start = rangeStart(headers), let answer = resource.rangeAnswer?(start, headers.first(name: "if-range")) {
            var answerHeaders = HTTPHeaders(answer.headers)
            if resource.sendsDate { answerHeaders.add(name: "Date", value: resource.date ?? HTTPDateFormat.now()) }
            return plan(
                head: HTTPResponseHead(
                    version: .http1_1, status: HTTPResponseStatus(statusCode: answer.status), headers: answerHeaders),
                body: answer.body[...], resource: resource, requestIndex: requestIndex)
        }
        var responseHeaders = HTTPHeaders()
        if resource.sendsDate { responseHeaders.add(name: "Date", value: resource.date ?? HTTPDateFormat.now()) }
        if let etag = resource.etag { responseHeaders.add(name: "ETag", value: etag) }
        if let modified = resource.lastModified { responseHeaders.add(name: "Last-Modified", value: modified) }
        if let encoding = resource.contentEncoding { responseHeaders.add(name: "Content-Encoding", value: encoding) }
        if let disposition = resource.contentDisposition {
            responseHeaders.add(name: "Content-Disposition", value: disposition)
        }
        responseHeaders.add(name: "Accept-Ranges", value: "bytes")
        let total = resource.body.count
        var status = HTTPResponseStatus.ok
        var body = resource.body[...]
        if resource.honoursRange, resource.contentEncoding == nil, let start = rangeStart(headers),
            !resource.honoursIfRange || ifRangeMatches(headers, resource)
        {
            guard start < total else {
                var plan = error(416)
                plan.head.headers.replaceOrAdd(name: "Content-Range", value: "bytes */\(total)")
                return plan
            }
            status = resource.saysOKForRanges ? .ok : .partialContent
            body = resource.body[start...]
            responseHeaders.add(name: "Content-Range", value: "bytes \(start)-\(total - 1)/\(total)")
        }
        if resource.sendsContentLength { responseHeaders.add(name: "Content-Length", value: "\(body.count)") }
        return plan(
            head: HTTPResponseHead(version: .http1_1, status: status, headers: responseHeaders), body: body,
            resource: resource, requestIndex: requestIndex)
    }

    /// The plan for a served body: the resource's drop, stall and pacing for this request.
    private static func plan(
        head: HTTPResponseHead, body: ArraySlice<UInt8>, resource: FaultResource, requestIndex: Int
    ) -> ResponsePlan {
        let drop = requestIndex - resource.failures.count
        return ResponsePlan(
            head: head, body: body,
            dropAfter: drop < resource.dropAfter.count ? resource.dropAfter[drop] : nil,
            stallAfter: drop < resource.stallAfter.count ? resource.stallAfter[drop] : nil,
            chunkSize: max(1, resource.chunkSize), chunkDelayMilliseconds: resource.chunkDelayMilliseconds)
    }

    static func error(_ code: Int) -> ResponsePlan {
        let status = HTTPResponseStatus(statusCode: code)
        let page = Array("<html><body>\(code) \(status.reasonPhrase)</body></html>".utf8)
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/html")
        headers.add(name: "Content-Length", value: "\(page.count)")
        return ResponsePlan(
            head: HTTPResponseHead(version: .http1_1, status: status, headers: headers), body: page[...],
            dropAfter: nil, stallAfter: nil,
            chunkSize: page.count, chunkDelayMilliseconds: 0)
    }

    /// `N` of `Range: bytes=N-` (or `bytes=N-M`, served to the end all the same).
    static func rangeStart(_ headers: HTTPHeaders) -> Int? {
        guard let range = headers.first(name: "range"), range.hasPrefix("bytes=") else { return nil }
        let spec = range.dropFirst(6)
        guard let dash = spec.firstIndex(of: "-") else { return nil }
        return Int(spec[..<dash])
    }

    static func ifRangeMatches(_ headers: HTTPHeaders, _ resource: FaultResource) -> Bool {
        guard let condition = headers.first(name: "if-range") else { return true }
        if condition.hasPrefix("\"") { return resource.etag == condition }
        return resource.lastModified == condition
    }
}
