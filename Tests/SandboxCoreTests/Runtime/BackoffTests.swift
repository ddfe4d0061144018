import SandboxCore
import Testing

@Suite struct BackoffTests {
    @Test func growsByTheMultiplierUpToTheCap() {
        let backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(30))
        #expect(backoff.delay(retry: 0) == .milliseconds(250))
        #expect(backoff.delay(retry: 1) == .milliseconds(500))
        #expect(backoff.delay(retry: 3) == .seconds(2))
        #expect(backoff.delay(retry: 7) == .seconds(30))
        #expect(backoff.delay(retry: -5) == .milliseconds(250), "a negative retry counts as the first")
        let constant = Backoff(initial: .seconds(1), maximum: .seconds(10), multiplier: 1)
        #expect(constant.delay(retry: 1_000) == .seconds(1))
    }

    /// `Duration * Double` traps once the product leaves a `Duration`'s range: the 1,026th
    /// doubling of 250 ms, a huge first delay, an infinite multiplier. The back-off saturates.
    @Test func neverTraps() {
        let backoff = Backoff(initial: .milliseconds(250), maximum: .seconds(3600))
        for retry in [64, 1_026, 10_000, Int.max] { #expect(backoff.delay(retry: retry) == .seconds(3600)) }
        let huge = Backoff(initial: .seconds(Int64.max), maximum: .seconds(Int64.max))
        #expect(huge.delay(retry: 3) == .seconds(Int64.max))
        let wild = Backoff(initial: .seconds(1), maximum: .seconds(60), multiplier: .infinity)
        #expect(wild.delay(retry: 2) == .seconds(60))
        let notANumber = Backoff(initial: .seconds(1), maximum: .seconds(60), multiplier: .nan)
        #expect(notANumber.delay(retry: 2) == .seconds(60))
    }

    @Test func scaledStaysUnderTheCeiling() {
        #expect(Backoff.scaled(.seconds(2), by: 0.5, atMost: .seconds(10)) == .seconds(1))
        #expect(Backoff.scaled(.seconds(2), by: 100, atMost: .seconds(10)) == .seconds(10))
        #expect(Backoff.scaled(.seconds(Int64.max), by: 1.5, atMost: .seconds(10)) == .seconds(10))
        #expect(Backoff.scaled(.seconds(2), by: .nan, atMost: .seconds(10)) == .seconds(10))
    }
}
