import Glibc
import SandboxCore
import Testing

@Suite("Duration conversions clamp")
struct DurationConversionTests {
    static let huge = Duration.seconds(Int64.max)
    static let hugeNegative = Duration.seconds(Int64.min)

    @Test("ordinary durations convert exactly, rounded as each converter says")
    func ordinary() {
        let value = Duration.seconds(2) + .nanoseconds(500_000_001)
        #expect(value.clampedMilliseconds == 2_500)
        #expect(value.clampedMillisecondsRoundedUp == 2_501)
        #expect(value.clampedNanoseconds == 2_500_000_001)
        #expect(value.clampedSeconds == 2)
        #expect(value.clampedSecondsRoundedUp == 3)
        #expect(value.secondsAsDouble == 2.500_000_001)
        #expect(value.pollTimeout == 2_500)
        #expect(value.timespec.tv_sec == 2 && value.timespec.tv_nsec == 500_000_001)
        #expect(value.timeval.tv_sec == 2 && value.timeval.tv_usec == 500_000)
        #expect(Duration.seconds(3).clampedSecondsRoundedUp == 3)
        #expect(Duration.milliseconds(7).clampedMillisecondsRoundedUp == 7)
        #expect(Duration.zero.pollTimeout == 0)
    }

    @Test("Int64.max seconds saturates every converter instead of trapping")
    func huge() {
        let huge = Self.huge
        #expect(huge.clampedMilliseconds == .max)
        #expect(huge.clampedMillisecondsRoundedUp == .max)
        #expect(huge.clampedNanoseconds == .max)
        #expect(huge.clampedSeconds == .max)
        #expect(huge.clampedSecondsRoundedUp == .max)
        #expect(huge.secondsAsDouble == Double(Int64.max))
        #expect(huge.pollTimeout == .max)
        #expect(huge.timespec.tv_sec == .max)
        #expect(huge.timeval.tv_sec == .max)
        // Past Int64.max seconds too (Duration holds 128 bits of attoseconds).
        let larger = huge * 10
        #expect(larger.clampedMilliseconds == .max)
        #expect(larger.timespec.tv_sec == .max)
        #expect(larger.timeval.tv_usec == 999_999)
    }

    @Test("negative durations: toward Int64.min where signed, zero for poll, timespec and timeval")
    func negative() {
        let negative = Self.hugeNegative
        #expect(negative.clampedMilliseconds == .min)
        #expect(negative.clampedNanoseconds == .min)
        #expect(negative.clampedSeconds == .min)
        #expect(negative.pollTimeout == 0, "never -1, which poll(2) reads as forever")
        #expect(negative.timespec.tv_sec == 0 && negative.timespec.tv_nsec == 0)
        #expect(negative.timeval.tv_sec == 0 && negative.timeval.tv_usec == 0)
        let small = Duration.milliseconds(-1_500)
        #expect(small.clampedMilliseconds == -1_500)
        #expect(small.clampedSeconds == -1)
        #expect(small.clampedSecondsRoundedUp == -1)
        #expect(small.secondsAsDouble == -1.5)
    }

    @Test("timespec and timeval fractions stay below one second, as the kernel requires")
    func timespecIsValidForTheKernel() {
        // tv_nsec must be below one second for the kernel to accept it.
        for value in [Self.huge, Self.huge * 10, Duration.nanoseconds(999_999_999), .seconds(1)] {
            #expect((0..<1_000_000_000).contains(value.timespec.tv_nsec))
            #expect((0..<1_000_000).contains(value.timeval.tv_usec))
        }
    }

    @Test("removeInterruptedWrites takes an age of Int64.max or Int64.min seconds")
    func recoveryAge() throws {
        let fixture = try IOFixture()
        try fixture.hostWrite(".f.sandbox-3k9x2", [2])
        #expect(try fixture.root.removeInterruptedWrites(olderThan: Self.huge) == 0, "nothing is that old")
        #expect(try fixture.root.removeInterruptedWrites(olderThan: Self.hugeNegative) == 1, "everything is")
        #expect(fixture.hostList().isEmpty)
    }
}
