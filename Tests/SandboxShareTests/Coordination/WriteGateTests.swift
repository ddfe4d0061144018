import Sandbox
import SandboxCore
import Testing

@testable import SandboxShare

/// The share's admission of changes while it lets go of its container (``WriteGate``).
@Suite struct WriteGateTests {
    @Test("paused, it refuses changes with 503 and Retry-After 1; resumed, it admits them")
    func pauseRefusesResumeAdmits() throws {
        let gate = WriteGate()
        gate.pause(for: .restore)
        let error = #expect(throws: SandboxError.self) { try gate.admit() }
        #expect(error?.code == .unavailable && error?.code.httpStatus == 503)
        #expect(error?.retryAfter == .seconds(1))
        #expect(error?.message.contains("being restored") == true, "\(String(describing: error))")
        gate.resume()
        gate.leave(try gate.admit())
    }

    @Test("letting go waits for the change in flight, and returns as soon as it is answered")
    func drainWaitsForTheChangeInFlight() async throws {
        let gate = WriteGate()
        #expect(gate.drain(until: .now + .seconds(600)) == 0)  // none in flight: at once
        let ticket = try gate.admit()
        gate.pause(for: .restore)
        // Drained on a thread of its own, as the share's presenter thread does.
        async let cut = OwnedThread.run(name: "drain") { gate.drain(until: .now + .seconds(600)) }
        gate.leave(ticket)
        #expect(try await cut == 0)
        try gate.check(ticket)  // it ended first: not cut
    }

    @Test("a change still running at the deadline is cut: refused from then on, even once changes resume")
    func drainCutsAtTheDeadline() async throws {
        let gate = WriteGate()
        let ticket = try gate.admit()
        gate.pause(for: .uninstall)
        #expect(try await OwnedThread.run(name: "drain") { gate.drain(until: .now + .milliseconds(100)) } == 1)
        gate.resume()
        let error = #expect(throws: SandboxError.self) { try gate.check(ticket) }
        #expect(error?.code == .unavailable)
        #expect(error?.message.contains("uninstalled") == true, "\(String(describing: error))")
        gate.leave(ticket)
        // A cut change is not waited for again, and new ones are not cut.
        let next = try gate.admit()
        gate.pause(for: .backup)
        gate.leave(next)
        #expect(gate.drain(until: .now + .seconds(600)) == 0)
        try gate.check(next)
    }
}
