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
        let decision = ResponseDecision.decide(status: 200, headers: headers([("Content-Length", "1000")]), plan: plan(offset: 0, expected: nil))
        #expect(decision == .write(offset: 0, expectedTotal: 1000, restart: nil))
        let chunked = ResponseDecision.decide(status: 200, headers: headers([]), plan: plan(offset: 0, expected: nil))
        #expect(chunked == .write(offset: 0, expectedTotal: nil, restart: nil))
    }

    @Test func partialContentAtOurOffsetContinues() {
        let decision = ResponseDecision.decide(
            status: 206, headers: headers([("Content-Range", "bytes 400-999/1000"), ("Content-Length", "600"), ("ETag", "\"v1\"")]), plan: plan(offset: 400))
        #expect(decision == .write(offset: 400, expectedTotal: 1000, restart: nil))
    }

    @Test func partialContentElsewhereOrOfAnotherLengthRestarts() {
        let wrongStart = ResponseDecision.decide(status: 206, headers: headers([("Content-Range", "bytes 0-999/1000")]), plan: plan(offset: 400))
        #expect(wrongStart == .restartWithoutRange(.contentRangeMismatch))
        let wrongTotal = ResponseDecision.decide(status: 206, headers: headers([("Content-Range", "bytes 400-1199/1200")]), plan: plan(offset: 400))
        #expect(wrongTotal == .restartWithoutRange(.contentRangeMismatch))
        let otherTag = ResponseDecision.decide(
            status: 206, headers: headers([("Content-Range", "bytes 400-999/1000"), ("ETag", "\"v2\"")]), plan: plan(offset: 400))
        #expect(otherTag == .restartWithoutRange(.validatorChanged))
    }

    @Test func partialContentWithoutContentRangeIsInvalid() {
        let decision = ResponseDecision.decide(status: 206, headers: headers([]), plan: plan(offset: 400))
        guard case .invalid = decision else { Issue.record("expected invalid, got \(decision)"); return }
        let lying = ResponseDecision.decide(status: 206, headers: headers([("Content-Range", "bytes 400-999/1000"), ("Content-Length", "5")]), plan: plan(offset: 400))
        guard case .invalid = lying else { Issue.record("expected invalid, got \(lying)"); return }
    }

    @Test func okToARangeRestartsFromZeroNeverAppends() {
        let same = ResponseDecision.decide(status: 200, headers: headers([("Content-Length", "1000"), ("ETag", "\"v1\"")]), plan: plan(offset: 400))
        #expect(same == .write(offset: 0, expectedTotal: 1000, restart: .serverIgnoredRange))
        let changed = ResponseDecision.decide(status: 200, headers: headers([("Content-Length", "1000"), ("ETag", "\"v2\"")]), plan: plan(offset: 400))
        #expect(changed == .write(offset: 0, expectedTotal: 1000, restart: .validatorChanged))
    }

    @Test func okWithOurContentRangeContinues() {
        let decision = ResponseDecision.decide(status: 200, headers: headers([("Content-Range", "bytes 400-999/1000")]), plan: plan(offset: 400))
        #expect(decision == .write(offset: 400, expectedTotal: 1000, restart: nil))
    }

    @Test func rangeNotSatisfiable() {
        let complete = ResponseDecision.decide(status: 416, headers: headers([("Content-Range", "bytes */1000")]), plan: plan(offset: 1000))
        #expect(complete == .alreadyComplete(total: 1000))
        let shorter = ResponseDecision.decide(status: 416, headers: headers([("Content-Range", "bytes */800")]), plan: plan(offset: 900, expected: nil))
        #expect(shorter == .restartWithoutRange(.rangeNotSatisfiable))
        let bare = ResponseDecision.decide(status: 416, headers: headers([]), plan: plan(offset: 900))
        #expect(bare == .restartWithoutRange(.rangeNotSatisfiable))
        #expect(ResponseDecision.decide(status: 416, headers: headers([]), plan: plan(offset: 0)) == .fail(status: 416))
    }

    @Test func errorsNeverBecomeContent() {
        for status in [301, 304, 400, 401, 403, 404, 410, 451] {
            #expect(ResponseDecision.decide(status: status, headers: headers([]), plan: plan(offset: 0)) == .fail(status: status))
        }
        for status in [408, 429, 500, 502, 503, 504] {
            let decision = ResponseDecision.decide(status: status, headers: headers([("Retry-After", "3")]), plan: plan(offset: 10))
            #expect(decision == .retry(retryAfter: "3", status: status))
        }
    }

    @Test func validators() {
        #expect(Validator.strongValidator(etag: "\"abc\"", lastModified: nil, date: nil) == .entityTag("\"abc\""))
        #expect(Validator.strongValidator(etag: "W/\"abc\"", lastModified: nil, date: nil) == nil)
        let modified = "Tue, 15 Nov 1994 08:12:31 GMT"
        #expect(Validator.strongValidator(etag: "W/\"abc\"", lastModified: modified, date: "Tue, 15 Nov 1994 09:00:00 GMT") == .lastModified(modified))
        #expect(Validator.strongValidator(etag: nil, lastModified: modified, date: modified) == nil)  // weak: same second as Date
        #expect(Validator.strongValidator(etag: nil, lastModified: "yesterday", date: nil) == nil)
    }
}
