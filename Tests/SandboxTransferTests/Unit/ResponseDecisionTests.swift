import NIOHTTP1
import Testing

@testable import SandboxTransfer

@Suite struct ResponseDecisionTests {
    let tag = Validator.entityTag("\"v1\"")

    func plan(offset: Int64, expected: Int64? = 1000) -> RequestPlan {
        RequestPlan(offset: offset, validator: tag, expectedLength: expected)
    }

    func headers(_ pairs: [(String, String)]) -> HTTPHeaders { HTTPHeaders(pairs) }

    @Test func freshDownload() {
        let decision = ResponseDecision.decide(
            status: 200, headers: headers([("Content-Length", "1000")]), plan: plan(offset: 0, expected: nil))
        #expect(decision == .write(offset: 0, end: 1000, expectedTotal: 1000, restart: nil))
        let chunked = ResponseDecision.decide(status: 200, headers: headers([]), plan: plan(offset: 0, expected: nil))
        #expect(chunked == .write(offset: 0, end: nil, expectedTotal: nil, restart: nil))
    }

    @Test func partialContentAtOurOffsetContinues() {
        let decision = ResponseDecision.decide(
            status: 206,
            headers: headers([("Content-Range", "bytes 400-999/1000"), ("Content-Length", "600"), ("ETag", "\"v1\"")]),
            plan: plan(offset: 400))
        #expect(decision == .write(offset: 400, end: 1000, expectedTotal: 1000, restart: nil))
    }

    @Test func partialContentElsewhereOrOfAnotherLengthRestarts() {
        let wrongStart = ResponseDecision.decide(
            status: 206, headers: headers([("Content-Range", "bytes 0-999/1000")]), plan: plan(offset: 400))
        #expect(wrongStart == .restartWithoutRange(.contentRangeMismatch))
        let wrongTotal = ResponseDecision.decide(
            status: 206, headers: headers([("Content-Range", "bytes 400-1199/1200")]), plan: plan(offset: 400))
        #expect(wrongTotal == .restartWithoutRange(.contentRangeMismatch))
        let otherTag = ResponseDecision.decide(
            status: 206, headers: headers([("Content-Range", "bytes 400-999/1000"), ("ETag", "\"v2\"")]),
            plan: plan(offset: 400))
        #expect(otherTag == .restartWithoutRange(.validatorChanged))
    }

    /// A 206 that cannot continue our offset starts over without `Range` (never retried as it is):
    /// no or a bad Content-Range, a Content-Length that disagrees, multipart, content-coded.
    @Test func unusablePartialContentRestarts() {
        let cases: [([(String, String)], RestartReason)] = [
            ([], .contentRangeMismatch),
            ([("Content-Range", "bytes 400-999/1000"), ("Content-Length", "5")], .contentRangeMismatch),
            ([("Content-Type", "multipart/byteranges; boundary=x")], .contentRangeMismatch),
            ([("Content-Range", "bytes 400-999/1000"), ("Content-Encoding", "gzip")], .contentCoded),
            ([("Content-Range", "bytes 400-1199/*")], .contentRangeMismatch),  // past the known total
        ]
        for (pairs, reason) in cases {
            #expect(
                ResponseDecision.decide(status: 206, headers: headers(pairs), plan: plan(offset: 400))
                    == .restartWithoutRange(reason), "\(pairs)")
        }
        let unasked = ResponseDecision.decide(status: 206, headers: headers([]), plan: plan(offset: 0))
        guard case .invalid = unasked else {
            Issue.record("expected invalid, got \(unasked)")
            return
        }
    }

    /// A short 206 (RFC 9110 §15.3.7) is written up to its end, with the whole length known.
    @Test func shortPartialContentEndsAtItsRange() {
        let decision = ResponseDecision.decide(
            status: 206, headers: headers([("Content-Range", "bytes 400-499/1000")]), plan: plan(offset: 400))
        #expect(decision == .write(offset: 400, end: 500, expectedTotal: 1000, restart: nil))
        let unknownTotal = ResponseDecision.decide(
            status: 206, headers: headers([("Content-Range", "bytes 400-499/*")]), plan: plan(offset: 400))
        #expect(unknownTotal == .write(offset: 400, end: 500, expectedTotal: 1000, restart: nil))
    }

    @Test func okToARangeRestartsFromZeroNeverAppends() {
        let same = ResponseDecision.decide(
            status: 200, headers: headers([("Content-Length", "1000"), ("ETag", "\"v1\"")]), plan: plan(offset: 400))
        #expect(same == .write(offset: 0, end: 1000, expectedTotal: 1000, restart: .serverIgnoredRange))
        let changed = ResponseDecision.decide(
            status: 200, headers: headers([("Content-Length", "1000"), ("ETag", "\"v2\"")]), plan: plan(offset: 400))
        #expect(changed == .write(offset: 0, end: 1000, expectedTotal: 1000, restart: .validatorChanged))
    }

    /// Only a 206 continues: a 200 with our Content-Range is not trusted (its body may be the whole
    /// or the tail), one with the whole range is the whole body.
    @Test func okWithAContentRangeIsNeverAContinuation() {
        let ours = ResponseDecision.decide(
            status: 200, headers: headers([("Content-Range", "bytes 400-999/1000")]), plan: plan(offset: 400))
        #expect(ours == .restartWithoutRange(.contentRangeMismatch))
        let whole = ResponseDecision.decide(
            status: 200, headers: headers([("Content-Range", "bytes 0-999/1000"), ("Content-Length", "1000")]),
            plan: plan(offset: 400))
        #expect(whole == .write(offset: 0, end: 1000, expectedTotal: 1000, restart: .serverIgnoredRange))
        let fresh = ResponseDecision.decide(
            status: 200, headers: headers([("Content-Range", "bytes 400-999/1000")]), plan: plan(offset: 0))
        guard case .invalid = fresh else {
            Issue.record("expected invalid, got \(fresh)")
            return
        }
    }

    @Test func rangeNotSatisfiable() {
        let complete = ResponseDecision.decide(
            status: 416, headers: headers([("Content-Range", "bytes */1000")]), plan: plan(offset: 1000))
        #expect(complete == .alreadyComplete(total: 1000))
        let shorter = ResponseDecision.decide(
            status: 416, headers: headers([("Content-Range", "bytes */800")]), plan: plan(offset: 900, expected: nil))
        #expect(shorter == .restartWithoutRange(.rangeNotSatisfiable))
        let bare = ResponseDecision.decide(status: 416, headers: headers([]), plan: plan(offset: 900))
        #expect(bare == .restartWithoutRange(.rangeNotSatisfiable))
        #expect(ResponseDecision.decide(status: 416, headers: headers([]), plan: plan(offset: 0)) == .fail(status: 416))
    }

    @Test func errorsNeverBecomeContent() {
        for status in [301, 304, 400, 401, 403, 404, 410, 451] {
            #expect(
                ResponseDecision.decide(status: status, headers: headers([]), plan: plan(offset: 0))
                    == .fail(status: status))
        }
        for status in [408, 429, 500, 502, 503, 504] {
            let decision = ResponseDecision.decide(
                status: status, headers: headers([("Retry-After", "3")]), plan: plan(offset: 10))
            #expect(decision == .retry(retryAfter: "3", status: status))
        }
    }

    @Test func validators() {
        #expect(Validator.strongValidator(etag: "\"abc\"", lastModified: nil, date: nil) == .entityTag("\"abc\""))
        #expect(Validator.strongValidator(etag: "W/\"abc\"", lastModified: nil, date: nil) == nil)
        let modified = "Tue, 15 Nov 1994 08:12:31 GMT"
        let later = "Tue, 15 Nov 1994 09:00:00 GMT"
        #expect(Validator.strongValidator(etag: nil, lastModified: modified, date: later) == .lastModified(modified))
        // weak: same second as Date
        #expect(Validator.strongValidator(etag: nil, lastModified: modified, date: modified) == nil)
        #expect(Validator.strongValidator(etag: nil, lastModified: "yesterday", date: later) == nil)
    }

    /// RFC 9110 §13.1.5: no date in `If-Range` when an entity tag was received (a weak one is not
    /// replaced by the date), and a date only when shown strong by a `Date` a second later.
    @Test func ifRangeNeverCarriesAWeakValidator() {
        let modified = "Tue, 15 Nov 1994 08:12:31 GMT"
        let later = "Tue, 15 Nov 1994 09:00:00 GMT"
        #expect(Validator.strongValidator(etag: "W/\"abc\"", lastModified: modified, date: later) == nil)
        #expect(Validator.strongValidator(etag: nil, lastModified: modified, date: nil) == nil)
        let coded = headers([("ETag", "\"abc\""), ("Content-Encoding", "gzip")])
        #expect(ResponseDecision.resumeValidator(coded) == nil)
        #expect(
            ResponseDecision.resumeValidator(headers([("ETag", "\"abc\""), ("Content-Encoding", "identity")]))
                == .entityTag("\"abc\""))
    }
}
