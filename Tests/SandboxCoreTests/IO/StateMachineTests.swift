import Testing

@testable import SandboxCore

/// The pure state machines under the engine, streams, writers and channels, driven by hand.
@Suite("I/O state machines")
struct StateMachineTests {
    typealias Producer = ProducerMachine<Int, String>

    @Test("a step that produces several parts feeds a waiting consumer first and buffers the rest")
    func producerBatches() {
        var machine = Producer(highWatermark: 4, lowWatermark: 1)
        _ = machine.start()
        _ = machine.next("a")
        let step = machine.willProduce()
        #expect(step.proceed && step.room == 4)
        let action = machine.produced(.success([1, 2, 3]))
        #expect(action.resume?.0 == "a" && (try? action.resume?.1.get()) == 1)
        #expect(machine.bufferedCount == 2 && action.produceAgain)
        #expect(machine.willProduce().room == 2)
        let full = machine.produced(.success([4, 5]))
        #expect(!full.produceAgain && !machine.jobActive)
    }

    @Test("the producer parks at the high watermark and restarts at the low one")
    func producerWatermarks() {
        var machine = Producer(highWatermark: 3, lowWatermark: 1)
        let check10 = machine.start().startJob
        #expect(check10)
        let check11 = !machine.start().startJob  // already running
        #expect(check11)
        let check12 = machine.produced(.success([1])).produceAgain
        #expect(check12)
        let check13 = machine.produced(.success([2])).produceAgain
        #expect(check13)
        let third = machine.produced(.success([3]))
        #expect(!third.produceAgain && !machine.jobActive)  // parked with 3 buffered
        var action = machine.next("a")
        #expect(action.resume?.0 == "a" && (try? action.resume?.1.get()) == 1)
        #expect(!action.startJob)  // 2 left, above the low watermark
        action = machine.next("b")
        #expect((try? action.resume?.1.get()) == 2)
        #expect(action.startJob)  // 1 left: restart
        let check14 = machine.willProduce().proceed
        #expect(check14)
        // A waiting consumer gets the next part directly.
        _ = machine.next("c")  // takes 3
        action = machine.next("d")
        #expect(action.resume == nil)  // waits
        action = machine.produced(.success([4]))
        #expect(action.resume?.0 == "d" && (try? action.resume?.1.get()) == 4)
        // The end.
        action = machine.produced(.success([]))
        #expect(action.terminated && !action.produceAgain)
        action = machine.next("e")
        #expect(action.resume?.0 == "e" && (try? action.resume?.1.get()) == .some(nil))
        let check15 = !machine.cancel(.rule(.interrupted, "late")).terminated  // reported once only
        #expect(check15)
    }

    @Test("an error reaches the consumer once; cancelling drops parts and stops the job")
    func producerErrorsAndCancel() {
        var failing = Producer(highWatermark: 2, lowWatermark: 0)
        _ = failing.start()
        _ = failing.next("a")
        let action = failing.produced(.failure(.rule(.io, "boom")))
        #expect(action.terminated)
        if case .failure(let error)? = action.resume?.1 {
            #expect(error.code == .io)
        } else {
            Issue.record("no failure")
        }
        let check16 = (try? failing.next("b").resume?.1.get()) == .some(nil)  // then the end
        #expect(check16)

        var cancelled = Producer(highWatermark: 4, lowWatermark: 1)
        _ = cancelled.start()
        _ = cancelled.produced(.success([1]))
        let cancel = cancelled.cancel(.rule(.interrupted, "stop"))
        #expect(!cancel.terminated)  // the job is still running: it reports when it stops
        #expect(cancelled.bufferedCount == 0)
        let stop = cancelled.willProduce()
        #expect(!stop.proceed && stop.action.terminated)
        if case .failure(let error)? = cancelled.next("x").resume?.1 {
            #expect(error.code == .interrupted)
        } else {
            Issue.record("no failure")
        }

        var idle = Producer(highWatermark: 4, lowWatermark: 1)
        let check17 = idle.cancel(.rule(.interrupted, "stop")).terminated  // nothing running: at once
        #expect(check17)
        let check18 = !idle.start().startJob
        #expect(check18)
    }

    typealias Writer = WriterMachine<String>

    @Test("the writer queues appends, holds back past the high watermark, and releases at the low one")
    func writerBackPressure() {
        var machine = Writer(highWatermark: 10, lowWatermark: 4, batchLimit: 8)
        let closed = SandboxError.rule(.invalidArgument, "closed")
        var action = machine.append(DataRegions([UInt8](repeating: 1, count: 6)), "a", closedError: closed)
        #expect(action.startJob && action.resume.map(\.0) == ["a"])
        action = machine.append(DataRegions([UInt8](repeating: 2, count: 6)), "b", closedError: closed)
        #expect(!action.startJob && action.resume.isEmpty)  // 12 pending > 10: b waits
        let (first, _) = machine.takeBatch()
        #expect(first?.data.count == 6 && first?.offset == 0)  // 6 + 6 > batch limit 8
        action = machine.wrote(6, .success(()))
        #expect(action.resume.isEmpty)  // 6 pending > 4
        let (second, _) = machine.takeBatch()
        #expect(second?.offset == 6)
        action = machine.wrote(6, .success(()))
        #expect(action.resume.map(\.0) == ["b"])
        // Finish: no more appends; the drain completes when the job finds nothing left.
        action = machine.drain("f", closedError: closed)
        #expect(action.resume.isEmpty)
        let (none, done) = machine.takeBatch()
        #expect(none == nil && done.resume.map(\.0) == ["f"])
        action = machine.append(DataRegions([1]), "late", closedError: closed)
        if case .failure(let error) = action.resume.first?.1 {
            #expect(error.code == .invalidArgument)
        } else {
            Issue.record("append after finish")
        }
        #expect(machine.written == 12)
    }

    @Test("a write error fails the writer and every waiting task")
    func writerFailure() {
        var machine = Writer(highWatermark: 4, lowWatermark: 0, batchLimit: 100)
        let closed = SandboxError.rule(.invalidArgument, "closed")
        _ = machine.append(DataRegions([UInt8](repeating: 1, count: 5)), "a", closedError: closed)
        _ = machine.append(DataRegions([UInt8](repeating: 1, count: 5)), "b", closedError: closed)
        let (batch, _) = machine.takeBatch()
        #expect(batch?.data.count == 10)
        let action = machine.wrote(10, .failure(.rule(.noSpace, "full")))
        #expect(Set(action.resume.map(\.0)) == ["a", "b"])
        #expect(machine.failure?.code == .noSpace)
        if case .failure(let error) = machine.drain("f", closedError: closed).resume.first?.1 {
            #expect(error.code == .noSpace)
        } else {
            Issue.record("drain after failure")
        }
    }

    @Test("channel operations: random-access side by side, streams in order; close releases once")
    func channelMachine() {
        var random = ChannelMachine<String>(isStream: false)
        let check19 = random.add(1, "r1").start == ["r1"]
        #expect(check19)
        let check20 = random.add(2, "r2").start == ["r2"]
        #expect(check20)
        var action = random.close(immediately: false)
        #expect(!action.releaseDescriptor && action.cancel.isEmpty)
        let check21 = random.add(3, "r3").refuse == "r3"
        #expect(check21)
        let check22 = !random.ended(1).releaseDescriptor
        #expect(check22)
        let check23 = random.ended(2).releaseDescriptor
        #expect(check23)
        let check24 = !random.ended(2).releaseDescriptor
        #expect(check24)

        var stream = ChannelMachine<String>(isStream: true)
        let check25 = stream.add(1, "s1").start == ["s1"]
        #expect(check25)
        let check26 = stream.add(2, "s2").start.isEmpty
        #expect(check26)
        let check27 = stream.add(3, "s3").start.isEmpty
        #expect(check27)
        let check28 = stream.ended(2).start.isEmpty  // cancelled while queued
        #expect(check28)
        let check29 = stream.ended(1).start == ["s3"]
        #expect(check29)
        action = stream.close(immediately: true)
        #expect(action.cancel == ["s3"] && !action.releaseDescriptor)
        let check30 = stream.ended(3).releaseDescriptor
        #expect(check30)

        var empty = ChannelMachine<String>(isStream: true)
        let check31 = empty.close(immediately: false).releaseDescriptor
        #expect(check31)
        let check32 = !empty.close(immediately: true).releaseDescriptor
        #expect(check32)
    }
}
