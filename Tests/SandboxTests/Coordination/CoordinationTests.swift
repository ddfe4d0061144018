import Foundation
import Sandbox
import SandboxTesting
import Synchronization
import Testing

@Suite("Coordination: lifecycle operations and the live users of a container")
struct CoordinationTests {

    @Test("the policy refuses only for programs under sandbox run, and only where the container or bundle goes away")
    func policyTable() {
        for operation in CoordinatedOperation.allCases {
            for kind in PresenterKind.allCases {
                let response = CoordinationPolicy.response(to: operation, from: kind)
                #expect(
                    (response == .refuse)
                        == (kind == .run && [.restore, .update, .uninstall, .restart].contains(operation)))
            }
        }
        #expect(CoordinationPolicy.response(to: .restore, from: .share) == .relinquish)
        #expect(CoordinationPolicy.response(to: .update, from: .app) == .relinquish)
        // A watcher learns of a container's replacement or removal before it happens.
        #expect(CoordinationPolicy.response(to: .restore, from: .watch) == .relinquish)
        #expect(CoordinationPolicy.response(to: .uninstall, from: .watch) == .relinquish)
        #expect(CoordinationPolicy.response(to: .update, from: .watch) == .notify)
        #expect(CoordinationPolicy.response(to: .purge, from: .app) == .notify)
    }

    @Test("an operation waits for a presenter to relinquish, runs, then tells it the outcome")
    func relinquishThenReacquire() async throws {
        try await withInstalledApp { home, app in
            let presenter = try ContainerPresenter(home: home, app: app, kind: .app, description: "a test app")
            let order = Mutex<[String]>([])
            let listener = Task {
                var seen: [ContainerPresenter.Notice] = []
                for await notice in presenter.notices {
                    seen.append(notice)
                    if notice.phase == .will {
                        order.withLock { $0.append("relinquished") }
                        try presenter.relinquished(notice)
                    } else {
                        return seen
                    }
                }
                return seen
            }
            let failure = await operate(home, app, .restore) { () throws(SandboxError) in
                order.withLock { $0.append("body") }
            }
            #expect(failure == nil)
            let seen = try await listener.value
            #expect(order.withLock { $0 } == ["relinquished", "body"])
            #expect(seen.map(\.phase) == [.will, .did])
            #expect(seen.last?.outcome == .completed)
            #expect(seen.allSatisfy { $0.operation == .restore && $0.response == .relinquish })
            presenter.close()
            #expect(try home.presenters(of: app).isEmpty)
        }
    }

    @Test("a presenter that does not answer makes the operation fail, named, with nothing done")
    func silentPresenterRefuses() async throws {
        try await withInstalledApp { home, app in
            let presenter = try ContainerPresenter(home: home, app: app, kind: .share, description: "a stuck share")
            let ran = Mutex(false)
            let started = ContinuousClock.now
            let failure = await operate(home, app, .uninstall, timeout: .seconds(1)) { () throws(SandboxError) in
                ran.withLock { $0 = true }
            }
            let error = try #require(failure)
            #expect(error.code == .containerInUse)
            #expect(error.message.contains("a stuck share (pid \(getpid()))"), "\(error)")
            #expect(ContinuousClock.now - started < .seconds(30))
            #expect(!ran.withLock { $0 })
            // It is told the operation did not happen.
            var phases: [CoordinationState.Phase] = []
            for await notice in presenter.notices {
                phases.append(notice.phase)
                if notice.phase == .did {
                    #expect(notice.outcome == .failed)
                    break
                }
            }
            #expect(phases == [.will, .did])
            _ = try home.container(for: app)  // still installed
            withExtendedLifetime(presenter) {}
        }
    }

    @Test("a program under sandbox run refuses at once, by name; a notified watcher is not waited for")
    func runRefusesWatchIsNotified() async throws {
        try await withInstalledApp { home, app in
            let watcher = try ContainerPresenter(home: home, app: app, kind: .watch, description: "a watcher")
            let notified = await operate(home, app, .update, timeout: .seconds(60)) {}
            #expect(notified == nil)  // the watcher never answered: it was not asked to
            let program = try ContainerPresenter(home: home, app: app, kind: .run, description: "sandbox run python3")
            let started = ContinuousClock.now
            let refused = await operate(home, app, .update, timeout: .seconds(60)) {}
            #expect(ContinuousClock.now - started < .seconds(20))  // not the timeout: at once
            let error = try #require(refused)
            #expect(error.code == .containerInUse)
            #expect(error.message.contains("sandbox run python3 (pid \(getpid()))"))
            program.close()
            withExtendedLifetime(watcher) {}
        }
    }

    @Test("a dead presenter's registration (its lock free, as after SIGKILL) is removed and never waited for")
    func deadPresenterIsSwept() async throws {
        try await withInstalledApp { home, app in
            let folder = try ContainerPath("Device/Coordination/\(app.rawValue)/presenters")
            try home.root.createDirectory(at: folder, withIntermediateDirectories: true)
            let record = #"{"description":"a killed share","held":[],"kind":"share","pid":999999}"#
            try home.root.writeContents(Array(record.utf8), to: try folder.appending("999999-dead"))
            #expect(try home.presenters(of: app).isEmpty)
            #expect(await operate(home, app, .uninstall, timeout: .seconds(60)) {} == nil)
            #expect(try home.root.contentsOfDirectory(at: folder).isEmpty)
        }
    }

    @Test("a damaged state and forged answers neither stop operations nor stand in for a presenter's answer")
    func damagedStateAndStaleAnswers() async throws {
        try await withInstalledApp { home, app in
            let presenter = try ContainerPresenter(home: home, app: app, kind: .share, description: "a silent share")
            let folder = try ContainerPath("Device/Coordination/\(app.rawValue)")
            let token = try #require(
                try home.root.contentsOfDirectory(at: try folder.appending("presenters")).first?.name)
            // Answers for every epoch a damaged state could restart from, and a state that does not read.
            try home.root.writeContents(Array("1".utf8), to: try folder.appending("acks").appending(token))
            try home.root.writeContents([UInt8](repeating: 0x7B, count: 64 << 10), to: try folder.appending("state"))
            let failure = await operate(home, app, .restore, timeout: .seconds(1)) {}
            let error = try #require(failure)
            #expect(error.code == .containerInUse, "\(error)")
            #expect(error.message.contains("a silent share"), "\(error)")
            // The state was replaced: the next operation reads it.
            #expect(await operate(home, app, .update, timeout: .seconds(1)) {} == nil)
            withExtendedLifetime(presenter) {}
        }
    }

    @Test("an answer that is no answer (oversized, planted while the operation waits) counts as none")
    func oversizedAnswerIsNoAnswer() async throws {
        try await withInstalledApp { home, app in
            let presenter = try ContainerPresenter(home: home, app: app, kind: .share, description: "a garbled share")
            let token = try #require(
                try home.root.contentsOfDirectory(
                    at: try ContainerPath("Device/Coordination/\(app.rawValue)/presenters")
                ).first?.name)
            let answering = Task {
                for await notice in presenter.notices where notice.phase == .will {
                    let answer = try ContainerPath("Device/Coordination/\(app.rawValue)/acks").appending(token)
                    try home.root.writeContents([UInt8](repeating: 0x31, count: 4096), to: answer)
                    return
                }
            }
            let failure = await operate(home, app, .restore, timeout: .seconds(1)) {}
            try await answering.value
            let error = try #require(failure)
            #expect(error.code == .containerInUse, "\(error)")
            #expect(error.message.contains("a garbled share"), "\(error)")
            presenter.close()
        }
    }

    @Test("an operation returns once the presenters that confirm reacquisition have reopened the container")
    func reacquisitionIsWaitedFor() async throws {
        try await withInstalledApp { home, app in
            let presenter = try ContainerPresenter(
                home: home, app: app, kind: .share, description: "a share", confirmsReacquisition: true)
            let order = Mutex<[String]>([])
            let listener = Task {
                for await notice in presenter.notices {
                    if notice.phase == .will {
                        try presenter.relinquished(notice)
                    } else {
                        try await Task.sleep(for: .milliseconds(300))  // reopening takes a while
                        order.withLock { $0.append("reacquired") }
                        try presenter.reacquired(notice)
                        return
                    }
                }
            }
            #expect(await operate(home, app, .restore) {} == nil)
            order.withLock { $0.append("returned") }
            try await listener.value
            #expect(order.withLock { $0 } == ["reacquired", "returned"])
            presenter.close()
            // One that lets go but never confirms delays the operation by the bounded wait, and
            // fails nothing: the operation has happened.
            let silent = try ContainerPresenter(
                home: home, app: app, kind: .share, description: "a forgetful share", confirmsReacquisition: true)
            let answering = Task {
                for await notice in silent.notices where notice.phase == .will {
                    try silent.relinquished(notice)
                }
            }
            let started = ContinuousClock.now
            #expect(await operate(home, app, .lock) {} == nil)
            let waited = ContinuousClock.now - started
            #expect(waited >= SandboxHome.reacquisitionTimeout && waited < .seconds(60), "\(waited)")
            silent.close()
            try await answering.value
        }
    }

    @Test("operations on one app run one at a time; the second waits, bounded, then names the first")
    func operationsAreSerialized() async throws {
        try await withInstalledApp { home, app in
            let inside = Semaphore()
            let release = Semaphore()
            async let first = operate(home, app, .backup) { () throws(SandboxError) in
                inside.signal()
                release.wait()  // signalled below, after the second operation's bounded wait
            }
            try await OwnedThread.run(name: "test") { inside.wait() }
            let second = await operate(home, app, .restore, timeout: .milliseconds(300)) {}
            release.signal()
            #expect(await first == nil)
            let error = try #require(second)
            #expect(error.code == .containerInUse)
            #expect(error.message.contains("backup by pid \(getpid())"), "\(error)")
        }
    }
}

/// Runs `operation` on `app` through ``SandboxHome/coordinating(_:of:timeout:_:)`` on a thread of
/// its own; its error, if any.
/// Tests that expect the users to answer wait up to 60 s, not the library's 10 s: the wait ends
/// as soon as they answer, and with every test of the target started at once on a loaded 2-core
/// machine (load 12), a listener task once took longer than 10 s to be scheduled.
private func operate(
    _ home: SandboxHome, _ app: AppIdentifier, _ operation: CoordinatedOperation,
    timeout: Duration = .seconds(60),
    _ body: @escaping @Sendable () throws(SandboxError) -> Void
) async -> SandboxError? {
    do {
        try await OwnedThread.run(name: "operation") { () throws(SandboxError) in
            try home.coordinating(operation, of: app, timeout: timeout, body)
        }
        return nil
    } catch {
        return error
    }
}

/// A sandbox home in a fresh temporary directory with one app installed, for an `async` test.
private func withInstalledApp(_ body: (SandboxHome, AppIdentifier) async throws -> Void) async throws {
    try await withTemporaryHomeAsync { home, _ in
        let app = try AppIdentifier("com.example.notes")
        try home.createContainer(for: app)
        try await body(home, app)
    }
}
