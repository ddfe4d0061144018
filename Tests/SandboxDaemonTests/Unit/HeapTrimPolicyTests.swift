import Testing

@testable import SandboxDaemon

@Suite struct HeapTrimPolicyTests {
    @Test func trimsOnceAfterAFloodRecedes() {
        var policy = HeapTrimPolicy()
        let samples = [0, 40, 128, 128, 90, 33, 32, 31, 10, 0, 0]
        let trims = samples.map { policy.observe(openConnections: $0) }
        #expect(trims == [false, false, false, false, false, false, true, false, false, false, false])
    }

    @Test func ordinaryUseNeverTrims() {
        var policy = HeapTrimPolicy()
        let trims = [0, 3, 12, 31, 2, 0, 20, 0].map { policy.observe(openConnections: $0) }
        #expect(!trims.contains(true))
    }

    @Test func aSecondFloodTrimsAgain() {
        var policy = HeapTrimPolicy()
        let trims = [100, 5, 5, 64, 16].map { policy.observe(openConnections: $0) }
        #expect(trims == [false, true, false, false, true])
    }
}
