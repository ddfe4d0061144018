import AsyncHTTPClient
import Foundation
import NIOCore
import Testing

@testable import SandboxTransfer

@Suite struct PolicyTests {
    @Test func backOffGrowsIsCappedAndJittered() {
        let policy = RetryPolicy(
            maximumAttempts: 5, initialDelay: .seconds(1), maximumDelay: .seconds(3), multiplier: 2, jitter: 0.5)
        #expect(policy.delay(beforeAttempt: 1, random: 1) == nil)
        #expect(policy.delay(beforeAttempt: 2, random: 1) == .seconds(1))
        #expect(policy.delay(beforeAttempt: 3, random: 1) == .seconds(2))
        #expect(policy.delay(beforeAttempt: 4, random: 1) == .seconds(3))
        #expect(policy.delay(beforeAttempt: 4, random: 0) == .milliseconds(1500))
        #expect(policy.delay(beforeAttempt: 6, random: 1) == nil)
        #expect(policy.delay(beforeAttempt: 2, retryAfter: .seconds(2), random: 0) == .seconds(2))
        #expect(policy.delay(beforeAttempt: 2, retryAfter: .seconds(60), random: 0) == .seconds(3))
        #expect(RetryPolicy.never.delay(beforeAttempt: 2, random: 0) == nil)
    }

    /// A policy that retries (nearly) for ever, or starts from a huge delay, waits `maximumDelay`
    /// rather than trapping when the back-off leaves the range of a `Duration` (it trapped at the
    /// 1,026th try of the standard growth, and at the first retry of an `Int64.max`-second delay).
    @Test func backOffPastTheRangeOfADurationIsTheMaximum() {
        let forever = RetryPolicy(maximumAttempts: .max, maximumDelay: .seconds(30), jitter: 0)
        #expect(forever.delay(beforeAttempt: 1_026, random: 0) == .seconds(30))
        #expect(forever.delay(beforeAttempt: .max, random: 0) == .seconds(30))
        let huge = RetryPolicy(initialDelay: .seconds(Int64.max), maximumDelay: .seconds(Int64.max), jitter: 0)
        #expect(huge.delay(beforeAttempt: 3, random: 1)?.components.seconds == Int64.max)  // never past the cap
        let steep = RetryPolicy(initialDelay: .seconds(1), maximumDelay: .seconds(60), multiplier: .infinity, jitter: 0)
        #expect(steep.delay(beforeAttempt: 2, random: 0) == .seconds(1))
        #expect(steep.delay(beforeAttempt: 3, random: 0) == .seconds(60))
    }

    @Test func retryAfterValues() {
        let now = Date(timeIntervalSince1970: 784_887_151)  // Tue, 15 Nov 1994 08:12:31 GMT
        #expect(RetryPolicy.retryAfter("120") == .seconds(120))
        #expect(RetryPolicy.retryAfter("Tue, 15 Nov 1994 08:12:41 GMT", now: now) == .seconds(10))
        #expect(RetryPolicy.retryAfter("soon") == nil)
    }

    /// Timeouts far beyond what nanoseconds in an `Int64` hold are clamped, not an overflow trap
    /// when the session's client is made.
    @Test func timeoutsOfAnyLengthMakeAClient() async throws {
        var configuration = DownloadSession.Configuration.standard
        configuration.connectTimeout = .seconds(Int64.max)
        configuration.stallTimeout = .seconds(10_000_000_000)  // 317 years: 1e19 ns
        #expect(TimeAmount(configuration.stallTimeout) == .nanoseconds(Int64.max))
        let client = HTTPClient.forDownloads(configuration)  // trapped here when the conversion overflowed
        try await client.shutdown()
    }

    @Test func queueLimitsPerSessionAndPerHost() {
        var queue = TransferQueue(maximumActive: 3, maximumPerHost: 2)
        #expect(queue.enqueue(1, host: "a") == [1])
        #expect(queue.enqueue(2, host: "a") == [2])
        #expect(queue.enqueue(3, host: "a") == [])  // per host
        #expect(queue.enqueue(4, host: "b") == [4])
        #expect(queue.enqueue(5, host: "b") == [])  // per session
        #expect(queue.waitingTasks == [3, 5])
        #expect(queue.release(4) == [5])
        #expect(queue.release(1) == [3])
        queue.remove(3)
        #expect(queue.release(99) == [])
        #expect(queue.activeCount == 3)
    }

    @Test func queueStartsInOrderOfArrivalSkippingFullHosts() {
        var queue = TransferQueue(maximumActive: 2, maximumPerHost: 1)
        #expect(queue.enqueue(1, host: "a") == [1])
        #expect(queue.enqueue(1, host: "a") == [])  // running already
        for task in 2...5 { #expect(queue.enqueue(task, host: task == 5 ? "b" : "a") == (task == 5 ? [5] : [])) }
        #expect(queue.enqueue(3, host: "a") == [])  // waiting already: not twice
        #expect(queue.waitingTasks == [2, 3, 4])
        queue.remove(3)
        #expect(queue.enqueue(3, host: "a") == [])  // back in line, now last
        #expect(queue.waitingTasks == [2, 4, 3])
        #expect(queue.release(1) == [2])
        #expect(queue.release(2) == [4])
        #expect(queue.release(5) == [])  // host "a" is full: nothing else waits
        #expect(queue.release(4) == [3])
        #expect(queue.waitingTasks.isEmpty && queue.activeCount == 1)
    }

    @Test func queueOfManyTasksKeepsTheirOrder() {
        var queue = TransferQueue(maximumActive: 8, maximumPerHost: 8)
        var started: [Int] = []
        for task in 0..<10_000 { started += queue.enqueue(task, host: "h") }
        var next = 0
        while next < started.count {
            started += queue.release(started[next])
            next += 1
        }
        #expect(started == Array(0..<10_000))
        #expect(queue.activeCount == 0)
    }

    @Test func progressIsThrottledAndCountsTheOffset() {
        let start = ContinuousClock.now
        var meter = ProgressMeter(startingAt: 400, expectedTotal: 1000, interval: .milliseconds(100))
        #expect(meter.record(100, now: start) == nil)
        #expect(meter.record(100, now: start + .milliseconds(50)) == nil)
        let report = meter.record(100, now: start + .milliseconds(100))
        #expect(report?.bytesWritten == 300)
        #expect(report?.totalBytesWritten == 700)
        #expect(report?.totalBytesExpectedToWrite == 1000)
        #expect(report?.bytesPerSecond == 3000)
        #expect(report?.secondsRemaining == 0.1)
        #expect(meter.flush(now: start + .milliseconds(120)) == nil)
        _ = meter.record(300, now: start + .milliseconds(150))
        #expect(meter.flush(now: start + .milliseconds(150))?.totalBytesWritten == 1000)
        let unknown = TransferProgress(
            bytesWritten: 1, totalBytesWritten: 1, totalBytesExpectedToWrite: nil, bytesPerSecond: 100)
        #expect(unknown.fractionCompleted == nil && unknown.secondsRemaining == nil)
    }

    @Test func digestsAreCheckedText() throws {
        #expect(
            try ExpectedDigest(.sha256, hex: String(repeating: "A", count: 64)).hex == String(repeating: "a", count: 64)
        )
        #expect(throws: SandboxError.self) { try ExpectedDigest(.sha256, hex: "abc") }
        #expect(throws: SandboxError.self) { try ExpectedDigest(.md5, hex: String(repeating: "g", count: 32)) }
    }
}
