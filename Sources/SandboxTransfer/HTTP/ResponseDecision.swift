import Foundation
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
    /// A continuation came content-coded (gzip, …): its offsets count coded bytes, not the file's.
    case contentCoded = "content-coded"
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
///
/// Only a 206 continues a partial file, and only when its `Content-Range` starts exactly at our
/// offset, keeps the total, agrees with `Content-Length`, names the same version and is not
/// content-coded; any other 206 starts over without `Range`. A 200 is the whole representation
/// (RFC 9110 §14.4: `Content-Range` means nothing outside 206 and 416), so it always starts over,
/// and one whose `Content-Range` says it holds less is not trusted at all.
enum ResponseDecision: Sendable, Equatable {
    /// Write the body from `offset` (equal to the plan's offset, or 0 with `restart` saying why the
    /// partial file must be emptied first) up to `end`, exclusive (`nil`: until the body ends): a
    /// body that runs past `end` breaks HTTP, one that stops short was cut. `expectedTotal` is the
    /// whole file's length when known; a 206 may end before it (a short answer, RFC 9110 §15.3.7).
    case write(offset: Int64, end: Int64?, expectedTotal: Int64?, restart: RestartReason?)
    /// The partial file already holds the whole resource (416 with our length).
    case alreadyComplete(total: Int64)
    /// Ask again without `Range`, after emptying the partial file.
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
        if retryableStatuses.contains(status) {
            return .retry(retryAfter: headers.first(name: "retry-after"), status: status)
        }
        if status == 416 {
            guard plan.offset > 0 else { return .fail(status: status) }
            let range = headers.first(name: "content-range").flatMap(ContentRange.init)
            if let total = range?.completeLength, total == plan.offset,
                plan.expectedLength == nil || plan.expectedLength == total
            {
                return .alreadyComplete(total: total)
            }
            return .restartWithoutRange(.rangeNotSatisfiable)
        }
        guard (200..<300).contains(status) else { return .fail(status: status) }
        return status == 206 ? decidePartial(headers, plan) : decideWhole(headers, plan)
    }

    /// A 206: a continuation only when everything about it fits our request.
    private static func decidePartial(_ headers: HTTPHeaders, _ plan: RequestPlan) -> ResponseDecision {
        if plan.offset > 0, !validatorStillMatches(headers, plan) { return .restartWithoutRange(.validatorChanged) }
        if isContentCoded(headers) { return unusable(.contentCoded, "a content-coded 206 answer", plan) }
        if let type = headers.first(name: "content-type"), type.lowercased().hasPrefix("multipart/byteranges") {
            return unusable(.contentRangeMismatch, "a multipart/byteranges answer to a single range", plan)
        }
        let rangeHeader = headers.first(name: "content-range")
        guard let rangeHeader, let range = ContentRange(rangeHeader), let first = range.first, let last = range.last,
            let count = range.count
        else {
            return unusable(
                .contentRangeMismatch, "a 206 answer without a valid Content-Range (\(rangeHeader ?? "none"))", plan)
        }
        if let length = contentLength(headers), length != count {
            return unusable(
                .contentRangeMismatch, "Content-Length \(length) differs from Content-Range \(rangeHeader)", plan)
        }
        let total = range.completeLength ?? plan.expectedLength
        let sameTotal =
            plan.expectedLength == nil || range.completeLength == nil || plan.expectedLength == range.completeLength
        guard first == plan.offset, sameTotal, total.map({ last < $0 }) ?? true else {
            return unusable(
                .contentRangeMismatch, "Content-Range \(rangeHeader) does not continue byte \(plan.offset)", plan)
        }
        return .write(offset: first, end: last + 1, expectedTotal: total, restart: nil)
    }

    /// A 200 (or another 2xx): the whole representation, from zero.
    private static func decideWhole(_ headers: HTTPHeaders, _ plan: RequestPlan) -> ResponseDecision {
        let length = contentLength(headers)
        if let rangeHeader = headers.first(name: "content-range") {
            let range = ContentRange(rangeHeader)
            let whole = range?.first == 0 && range?.completeLength != nil && range?.count == range?.completeLength
            guard whole, length == nil || length == range?.completeLength else {
                return unusable(
                    .contentRangeMismatch, "a 200 answer whose Content-Range \(rangeHeader) is not the whole body", plan
                )
            }
        }
        guard plan.offset > 0 else {
            return .write(offset: 0, end: length, expectedTotal: length, restart: plan.restartReason)
        }
        return .write(
            offset: 0, end: length, expectedTotal: length,
            restart: validatorStillMatches(headers, plan) ? .serverIgnoredRange : .validatorChanged)
    }

    /// An answer that cannot be used: start over without `Range` when one was sent (the server may
    /// do better with a plain request), else the response is broken.
    private static func unusable(
        _ reason: RestartReason, _ explanation: String, _ plan: RequestPlan
    ) -> ResponseDecision {
        plan.offset > 0 ? .restartWithoutRange(reason) : .invalid(explanation)
    }

    /// The body's length from `Content-Length` (the bytes as sent: the client does not decompress).
    static func contentLength(_ headers: HTTPHeaders) -> Int64? {
        guard let text = headers.first(name: "content-length"),
            let value = Int64(decimal: Substring(text).trimmingSpaces())
        else { return nil }
        return value
    }

    /// Whether the body is content-coded (`Content-Encoding` other than `identity`): its bytes are
    /// stored as sent, but its offsets are not those of the representation, so it is never resumed
    /// into nor continued.
    static func isContentCoded(_ headers: HTTPHeaders) -> Bool {
        headers[canonicalForm: "content-encoding"].contains { coding in
            let name = coding.trimmingCharacters(in: .whitespaces).lowercased()
            return !name.isEmpty && name != "identity"
        }
    }

    /// The validator that guards resuming this response's bytes: none for a content-coded body,
    /// else ``Validator/strongValidator(etag:lastModified:date:)``.
    static func resumeValidator(_ headers: HTTPHeaders) -> Validator? {
        guard !isContentCoded(headers) else { return nil }
        return Validator.strongValidator(
            etag: headers.first(name: "etag"), lastModified: headers.first(name: "last-modified"),
            date: headers.first(name: "date"))
    }

    /// Whether the response names the version the plan resumes (true when it names none).
    private static func validatorStillMatches(_ headers: HTTPHeaders, _ plan: RequestPlan) -> Bool {
        guard let validator = plan.validator else { return true }
        let etag = headers.first(name: "etag")
        let modified = headers.first(name: "last-modified")
        if etag == nil && modified == nil { return true }
        if case .lastModified = validator, modified == nil { return true }
        return validator.matches(etag: etag, lastModified: modified)
    }
}
