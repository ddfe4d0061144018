import Testing

@testable import SandboxSoak

/// The ledger's expectations from the order of events: what the soak's end check demands of a
/// file given the restores of its app.
@Suite struct LedgerTests {
    let origin = ContinuousClock.now

    func at(_ seconds: Int) -> ContinuousClock.Instant { origin + .seconds(seconds) }

    func upload(_ start: Int, _ end: Int, acknowledged: Bool = true, app: String = "a") -> Ledger.Entry {
        Ledger.Entry(
            source: .upload, app: app, path: "f", sha256: "", start: at(start), end: at(end), acknowledged: acknowledged
        )
    }

    func restore(_ start: Int, _ end: Int, _ outcome: Ledger.Restore.Outcome, app: String = "a") -> Ledger.Restore {
        Ledger.Restore(app: app, start: at(start), end: at(end), outcome: outcome)
    }

    @Test func aFileWrittenBeforeACompletedRestoreIsGoneAfterIt() {
        #expect(Ledger.expectation(of: upload(1, 2), after: [restore(3, 4, .completed)]) == .absent)
        // Gone stays gone: a later restore goes back to the same snapshot, which never held it.
        #expect(
            Ledger.expectation(of: upload(1, 2), after: [restore(5, 6, .killed), restore(3, 4, .completed)]) == .absent)
    }

    @Test func aFileWrittenAfterARestoreOrBesideAFailedOneStays() {
        #expect(Ledger.expectation(of: upload(5, 6), after: [restore(3, 4, .completed)]) == .present)
        #expect(Ledger.expectation(of: upload(1, 2), after: [restore(3, 4, .failed)]) == .present)
        #expect(Ledger.expectation(of: upload(1, 2), after: [restore(3, 4, .completed, app: "b")]) == .present)
        #expect(Ledger.expectation(of: upload(1, 2), after: []) == .present)
    }

    @Test func overlapAKilledRestoreOrAnErrorLeaveEitherButNeverPartial() {
        #expect(Ledger.expectation(of: upload(2, 5), after: [restore(3, 4, .completed)]) == .either)
        #expect(Ledger.expectation(of: upload(1, 2), after: [restore(3, 4, .killed)]) == .either)
        #expect(Ledger.expectation(of: upload(5, 6, acknowledged: false), after: []) == .either)
        // Either, then a completed restore after it: gone.
        #expect(
            Ledger.expectation(of: upload(2, 5), after: [restore(3, 4, .completed), restore(7, 8, .completed)])
                == .absent)
    }
}
