import NIOHTTP1

/// Why a download started again from byte zero instead of continuing; reported to the app.
public enum RestartReason: String, Sendable, Hashable, Codable {
    /// The server answered a `Range` request with the whole body (200).
    case serverIgnoredRange = "server-ignored-range"
    /// The resource changed: `If-Range` did not match, or the validator differs.
    case validatorChanged = "validator-changed"
    /// The server answered 416 and its length differs from the partial file's.
    case rangeNotSatisfiable = "range-not-satisfiable"
    /// The 206 answer's `Content-Range` did not start at our offset or had another total.
    case contentRangeMismatch = "content-range-mismatch"
    /// The first response had no strong validator (ETag or Last-Modified), so a resume could not
    /// be guarded.
    case noValidator = "no-validator"
    /// The partial file was missing, replaced, or longer than the resource.
    case partialFileUnusable = "partial-file-unusable"
}

/// What one request asked for: the offset it resumes at (0: the whole body) and what it knew.
struct RequestPlan: Sendable, Hashable {
    var offset: Int64
    var validator: Validator?
    var expectedLength: Int64?
    /// Why the plan starts at zero although bytes were on disk, if it does.
    var restartReason: RestartReason?
}

/// What to do with a response, decided from its head before any byte is written (pure).
enum ResponseDecision: Sendable, Equatable {
    /// Write the body from `offset`: equal to the plan's offset, or 0 with `restart` saying why the
    /// partial file must be emptied first.
    case write(offset: Int64, expectedTotal: Int64?, restart: RestartReason?)
    /// The partial file already holds the whole resource (416 with our length).
    case alreadyComplete(total: Int64)
    /// Ask again without `Range` (416 with another length).
    case restartWithoutRange(RestartReason)
    /// A transient failure (408, 429, 5xx): try again after the server's `Retry-After`, if any.
    case retry(retryAfter: String?, status: Int)
    /// A failure to report; nothing is written.
    case fail(status: Int)
    /// The response breaks HTTP; nothing is written.
    case invalid(String)

    /// Statuses worth another try.
    static let retryableStatuses: Set<Int> = [408, 429, 500, 502, 503, 504]

    static func decide(status: Int, headers: HTTPHeaders, plan: RequestPlan) -> ResponseDecision {
        if retryableStatuses.contains(status) { return .retry(retryAfter: headers.first(name: "retry-after"), status: status) }
        if status == 416 {
            guard plan.offset > 0 else { return .fail(status: status) }
            let range = headers.first(name: "content-range").flatMap(ContentRange.init)
            if let total = range?.completeLength, total == plan.offset, plan.expectedLength == nil || plan.expectedLength == total {
                return .alreadyComplete(total: total)
            }
            return .restartWithoutRange(.rangeNotSatisfiable)
        }
        guard (200..<300).contains(status) else { return .fail(status: status) }
        let length = contentLength(headers)
        let rangeHeader = headers.first(name: "content-range")
        if status == 206 {
            guard let rangeHeader, let range = ContentRange(rangeHeader), let first = range.first, let count = range.count else {
                return .invalid("a 206 answer without a valid Content-Range (\(rangeHeader ?? "none"))")
            }
            if let length, length != count { return .invalid("Content-Length \(length) differs from Content-Range \(rangeHeader)") }
            let total = range.completeLength
            let sameTotal = plan.expectedLength == nil || total == nil || plan.expectedLength == total
            guard first == plan.offset, sameTotal, validatorStillMatches(headers, plan) else {
                return .restartWithoutRange(validatorStillMatches(headers, plan) ? .contentRangeMismatch : .validatorChanged)
            }
            return .write(offset: first, expectedTotal: total ?? plan.expectedLength, restart: nil)
        }
        // A 200 (or another 2xx). Some servers honour the range and say 200 with a Content-Range.
        if plan.offset > 0, let rangeHeader, let range = ContentRange(rangeHeader), range.first == plan.offset,
            plan.expectedLength == nil || range.completeLength == plan.expectedLength, validatorStillMatches(headers, plan)
        {
            return .write(offset: plan.offset, expectedTotal: range.completeLength ?? plan.expectedLength, restart: nil)
        }
        guard plan.offset > 0 else { return .write(offset: 0, expectedTotal: length, restart: plan.restartReason) }
        return .write(offset: 0, expectedTotal: length, restart: validatorStillMatches(headers, plan) ? .serverIgnoredRange : .validatorChanged)
    }

    /// The body's length from `Content-Length`, when the body is not re-encoded in transit.
    static func contentLength(_ headers: HTTPHeaders) -> Int64? {
        guard let text = headers.first(name: "content-length"), let value = Int64(decimal: Substring(text).trimmingSpaces()) else { return nil }
        return value
    }

    /// Whether the response names the version the plan resumes (true when it names none).
    private static func validatorStillMatches(_ headers: HTTPHeaders, _ plan: RequestPlan) -> Bool {
        guard let validator = plan.validator else { return true }
        let etag = headers.first(name: "etag"), modified = headers.first(name: "last-modified")
        if etag == nil && modified == nil { return true }
        if case .lastModified = validator, modified == nil { return true }
        return validator.matches(etag: etag, lastModified: modified)
    }
}
