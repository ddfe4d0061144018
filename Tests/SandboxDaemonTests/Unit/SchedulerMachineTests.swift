import Glibc
import Testing

@testable import SandboxDaemon

/// The scheduling policy without I/O: waiting for connectivity and discretionary tasks.
@Suite struct SchedulerMachineTests {
    private let key = SessionKey(app: "com.example.a", session: "s")
    private let near = Endpoint(host: "10.0.0.2", port: 80)
    private let far = Endpoint(host: "example.com", port: 443)

    private func task(_ id: Int) -> TaskReference { TaskReference(key: key, id: id) }

    @Test func aTaskStartsAtOnceWhileItsEndpointIsNotKnownUnreachable() {
        var machine = SchedulerMachine()
        #expect(machine.add(task(1), endpoint: near, policy: .init()) == [.start(task(1))])
        #expect(machine.phase(of: task(1)) == .running)
        #expect(machine.endpointsToProbe == [near])
    }

    @Test func losingTheNetworkSuspendsAndReportsOnceThenResumes() {
        var machine = SchedulerMachine()
        _ = machine.add(task(1), endpoint: near, policy: .init())
        _ = machine.add(task(2), endpoint: far, policy: .init())
        #expect(machine.set(.unreachable, of: near) == [.suspend(task(1)), .reportWaiting(task(1))])
        #expect(machine.set(.unreachable, of: near) == [], "one report per wait")
        #expect(machine.phase(of: task(2)) == .running, "another endpoint is not affected")
        #expect(machine.set(.reachable, of: near) == [.start(task(1))])
        #expect(machine.set(.reachable, of: near) == [])
    }

    @Test func aTaskAddedWhileOfflineWaitsWithoutStarting() {
        var machine = SchedulerMachine()
        _ = machine.add(task(1), endpoint: near, policy: .init())
        _ = machine.set(.unreachable, of: near)
        #expect(machine.add(task(2), endpoint: near, policy: .init()) == [.reportWaiting(task(2))])
        #expect(machine.set(.reachable, of: near) == [.start(task(1)), .start(task(2))])
    }

    @Test func withProbesATaskAddedWhileOfflineWaitsForItsFirstProbeAndNeverStarts() {
        var machine = SchedulerMachine(waitsForFirstProbe: true)
        #expect(machine.needsProbe(near, policy: .init()))
        #expect(!machine.needsProbe(near, policy: .init(waitsForConnectivity: false)))
        #expect(machine.add(task(1), endpoint: near, policy: .init()) == [], "held until probed")
        #expect(machine.phase(of: task(1)) == .new)
        #expect(machine.endpointsToProbe == [near])
        #expect(machine.set(.unreachable, of: near) == [.reportWaiting(task(1))], "waits, no attempt made")
        #expect(machine.set(.reachable, of: near) == [.start(task(1))])
        // Once probed, the endpoint's next task starts at once, with no probe of its own.
        #expect(!machine.needsProbe(near, policy: .init()))
        #expect(machine.add(task(2), endpoint: near, policy: .init()) == [.start(task(2))])
        // A task that does not wait is not held, and an endpoint no task uses is probed again.
        #expect(machine.add(task(3), endpoint: far, policy: .init(waitsForConnectivity: false)) == [.start(task(3))])
        _ = machine.remove(task(1))
        _ = machine.remove(task(2))
        #expect(machine.add(task(4), endpoint: near, policy: .init()) == [])
        #expect(machine.set(.reachable, of: near) == [.start(task(4))])
    }

    @Test func aTaskThatDoesNotWaitRunsAndFailsOnItsOwn() {
        var machine = SchedulerMachine()
        let policy = SchedulerMachine.Policy(waitsForConnectivity: false)
        _ = machine.add(task(1), endpoint: near, policy: policy)
        #expect(machine.endpointsToProbe.isEmpty)
        #expect(machine.set(.unreachable, of: near) == [])
        #expect(machine.phase(of: task(1)) == .running)
    }

    @Test func aDiscretionaryTaskWaitsForOthersAndYieldsToNewOnes() {
        var machine = SchedulerMachine()
        let discretionary = SchedulerMachine.Policy(isDiscretionary: true)
        _ = machine.add(task(1), endpoint: near, policy: .init())
        #expect(machine.add(task(2), endpoint: near, policy: discretionary) == [])
        #expect(machine.phase(of: task(2)) == .waitingForOtherTransfers)
        #expect(machine.remove(task(1)) == [.start(task(2))])
        // A normal task arrives: the discretionary one steps aside (suspended, its file kept).
        #expect(machine.add(task(3), endpoint: far, policy: .init()) == [.suspend(task(2)), .start(task(3))])
        #expect(machine.remove(task(3)) == [.start(task(2))])
    }

    @Test func aNormalTaskWaitingForTheNetworkDoesNotHoldDiscretionaryOnesOfAnotherHost() {
        var machine = SchedulerMachine()
        _ = machine.add(task(1), endpoint: near, policy: .init())
        _ = machine.add(task(2), endpoint: far, policy: .init(isDiscretionary: true))
        #expect(machine.set(.unreachable, of: near) == [.suspend(task(1)), .reportWaiting(task(1)), .start(task(2))])
    }

    @Test func removingForgetsAndUnknownRemovalsDoNothing() {
        var machine = SchedulerMachine()
        _ = machine.add(task(1), endpoint: near, policy: .init())
        _ = machine.set(.unreachable, of: near)
        #expect(machine.remove(task(1)) == [])
        #expect(machine.remove(task(1)) == [])
        #expect(machine.phase(of: task(1)) == nil)
        // What was known of the endpoint went with its last task: a new one starts optimistically.
        #expect(machine.add(task(2), endpoint: near, policy: .init()) == [.start(task(2))])
    }
}

/// The reachability verdicts without I/O.
@Suite struct RouteMemoryTests {
    private let endpoint = Endpoint(host: "10.0.0.2", port: 80)

    @Test func noRouteOrAnUnreachableResolverIsUnreachableOtherFailuresAreNot() {
        var memory = RouteMemory()
        memory.observe(links: ["eth0": true])
        #expect(memory.reachability(of: endpoint, [.noRoute(errno: ENETUNREACH)]) == .unreachable)
        #expect(memory.reachability(of: endpoint, [.noRoute(errno: EHOSTUNREACH)]) == .unreachable)
        #expect(memory.reachability(of: endpoint, [.unresolved(code: EAI_AGAIN)]) == .unreachable)
        #expect(memory.reachability(of: endpoint, [.unresolved(code: EAI_NONAME)]) == .reachable)
        #expect(memory.reachability(of: endpoint, [.noRoute(errno: EACCES)]) == .reachable)
        #expect(memory.reachability(of: endpoint, []) == .reachable)
        #expect(
            memory.reachability(of: endpoint, [.noRoute(errno: ENETUNREACH), .route(interface: "eth0")]) == .reachable)
    }

    @Test func aRouteThroughALinkWithoutCarrierIsUnreachable() {
        var memory = RouteMemory()
        memory.observe(links: ["eth0": false])
        #expect(memory.reachability(of: endpoint, [.route(interface: "eth0")]) == .unreachable)
        memory.observe(links: ["eth0": true])
        #expect(memory.reachability(of: endpoint, [.route(interface: "eth0")]) == .reachable)
    }

    @Test func whenTheCarryingLinkGoesDownTheDefaultRouteIsNotTrustedUntilItComesBack() {
        var memory = RouteMemory()
        memory.observe(links: ["eth0": true, "veth1": true])
        #expect(memory.reachability(of: endpoint, [.route(interface: "veth1")]) == .reachable)
        memory.observe(links: ["eth0": true, "veth1": false])
        #expect(memory.reachability(of: endpoint, [.route(interface: "eth0")]) == .unreachable)
        memory.observe(links: ["eth0": true, "veth1": true])
        #expect(memory.reachability(of: endpoint, [.route(interface: "veth1")]) == .reachable)
    }

    @Test func aLinkThatCameUpAfterTheLossCarriesTheRoute() {
        var memory = RouteMemory()
        memory.observe(links: ["wlan0": true])
        #expect(memory.reachability(of: endpoint, [.route(interface: "wlan0")]) == .reachable)
        memory.observe(links: ["wlan0": false])
        #expect(memory.reachability(of: endpoint, [.noRoute(errno: ENETUNREACH)]) == .unreachable)
        memory.observe(links: ["wlan0": false, "eth0": true])
        #expect(memory.reachability(of: endpoint, [.route(interface: "eth0")]) == .reachable)
        // eth0 carries it now: wlan0 coming back changes nothing, eth0 going down is a loss.
        memory.observe(links: ["wlan0": true, "eth0": false])
        #expect(memory.reachability(of: endpoint, [.route(interface: "wlan0")]) == .reachable)
    }

    @Test func aCarryingLinkThatDisappearedIsForgotten() {
        var memory = RouteMemory()
        memory.observe(links: ["eth0": true, "tun0": true])
        #expect(memory.reachability(of: endpoint, [.route(interface: "tun0")]) == .reachable)
        memory.observe(links: ["eth0": true])
        #expect(memory.reachability(of: endpoint, [.route(interface: "eth0")]) == .reachable)
    }
}
