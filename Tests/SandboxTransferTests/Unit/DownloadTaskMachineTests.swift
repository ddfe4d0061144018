import Testing

@testable import SandboxTransfer

@Suite struct DownloadTaskMachineTests {
    typealias Machine = DownloadTaskMachine
    let boom = SandboxError(.network, "boom")

    @Test func runsToSuccess() {
        var machine = Machine()
        #expect(machine.publicState == .suspended)
        #expect(machine.resume() == [.enqueue])
        #expect(machine.publicState == .waiting)
        #expect(machine.resume() == [])
        #expect(machine.slotGranted() == [.startRun(generation: 1)])
        #expect(machine.publicState == .running)
        #expect(machine.runEnded(generation: 1, result: .finished) == [.releaseSlot, .deliver])
        #expect(machine.publicState == .completed)
        #expect(machine.resume() == [])
        #expect(machine.cancel(producingResumeData: false) == [])
    }

    @Test func suspendAndResumeStartANewGeneration() {
        var machine = Machine()
        _ = machine.resume()
        _ = machine.slotGranted()
        #expect(machine.suspend() == [.stopRun(generation: 1)])
        #expect(machine.publicState == .suspended)
        #expect(machine.resume() == [])  // remembered until the run has stopped
        #expect(machine.runEnded(generation: 1, result: .failed(boom, resumable: true)) == [.releaseSlot, .enqueue])
        #expect(machine.publicState == .waiting)
        #expect(machine.slotGranted() == [.startRun(generation: 2)])
        #expect(machine.runEnded(generation: 1, result: .finished) == [])  // stale
        #expect(machine.publicState == .running)
    }

    @Test func suspendWhileWaitingLeavesTheQueue() {
        var machine = Machine()
        _ = machine.resume()
        #expect(machine.suspend() == [.dequeue])
        #expect(machine.slotGranted() == [.releaseSlot])  // a late grant is handed back
        #expect(machine.publicState == .suspended)
    }

    @Test func cancellationWinsEveryRace() {
        var machine = Machine()
        _ = machine.resume()
        _ = machine.slotGranted()
        #expect(machine.cancel(producingResumeData: false) == [.stopRun(generation: 1)])
        #expect(machine.publicState == .cancelling)
        let actions = machine.runEnded(generation: 1, result: .finished)
        #expect(actions.count == 2)
        #expect(actions.first == .releaseSlot)
        guard case .reportFailure(let error, let keep) = actions.last else {
            Issue.record("a finished run while cancelling must be reported as a failure")
            return
        }
        #expect(error.code == .cancelled)
        #expect(!keep)
        #expect(machine.publicState == .completed)
    }

    @Test func cancelProducingResumeDataKeepsThePartialFile() {
        var machine = Machine()
        _ = machine.resume()
        _ = machine.slotGranted()
        _ = machine.cancel(producingResumeData: true)
        guard
            case .reportFailure(_, let keep) = machine.runEnded(generation: 1, result: .failed(boom, resumable: true))
                .last
        else {
            Issue.record("expected a failure report")
            return
        }
        #expect(keep)
    }

    @Test func cancelBeforeStarting() {
        var suspended = Machine()
        guard case .reportFailure(let error, false) = suspended.cancel(producingResumeData: false).first else {
            Issue.record("expected an immediate report")
            return
        }
        #expect(error.code == .cancelled)
        var waiting = Machine()
        _ = waiting.resume()
        #expect(waiting.cancel(producingResumeData: false).first == .dequeue)
        #expect(waiting.publicState == .completed)
    }

    @Test func cancelWhileSuspendingWaitsForTheRun() {
        var machine = Machine()
        _ = machine.resume()
        _ = machine.slotGranted()
        _ = machine.suspend()
        #expect(machine.cancel(producingResumeData: false) == [])
        #expect(machine.publicState == .cancelling)
        #expect(machine.runEnded(generation: 1, result: .finished).count == 2)
        #expect(machine.publicState == .completed)
    }

    @Test func failureKeepsThePartialOnlyWhenResumable() {
        var machine = Machine()
        _ = machine.resume()
        _ = machine.slotGranted()
        #expect(
            machine.runEnded(generation: 1, result: .failed(boom, resumable: false)).last
                == .reportFailure(boom, keepPartial: false))
        #expect(Machine(completed: .failed).publicState == .completed)
    }
}
