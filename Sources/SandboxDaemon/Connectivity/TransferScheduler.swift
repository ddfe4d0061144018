import Foundation
import Logging
import SandboxTransfer
import Synchronization

/// Runs ``SchedulerMachine`` for the daemon: holds the tasks it schedules, performs its actions
/// (resume, suspend, report), and probes the endpoints of waiting-capable tasks on the
/// ``NetworkMonitor``'s thread whenever the network changes or a task asks.
final class TransferScheduler: Sendable {
    /// What the scheduler needs of a scheduled task.
    struct Scheduled: Sendable {
        var task: DownloadTask
        /// Called when the task starts waiting for connectivity.
        var reportWaiting: @Sendable () -> Void
    }

    private struct State: Sendable {
        var machine = SchedulerMachine()
        var routes = RouteMemory()
        var tasks: [TaskReference: Scheduled] = [:]
    }

    private let state = Mutex(State())
    private let monitor = Mutex<NetworkMonitor?>(nil)
    private let logger: Logger

    /// A scheduler whose monitor starts with it; ``stop()`` ends the monitor's thread.
    init(logger: Logger) {
        self.logger = logger
        do throws(SandboxError) {
            let monitor = try NetworkMonitor(logger: logger) { [weak self] in self?.probe() }
            self.monitor.withLock { $0 = monitor }
            // Someone probes: a task that waits for connectivity starts after its first probe, so
            // one added while offline waits at once instead of failing a first attempt.
            state.withLock { $0.machine = SchedulerMachine(waitsForFirstProbe: true) }
        } catch {
            logger.error("Network changes are not watched: \(error)")
        }
    }

    func stop() { monitor.withLock { $0?.stop() } }

    /// Schedules `task`: started now, or held (and reported) until it may run; probes its endpoint.
    func add(_ reference: TaskReference, url: URL, policy: SchedulerMachine.Policy, _ scheduled: Scheduled) {
        let endpoint = Self.endpoint(of: url)
        let probe = state.withLock { state in
            // Asked before the task is added: its own entry does not make the endpoint probed.
            let probe = state.machine.needsProbe(endpoint, policy: policy)
            state.tasks[reference] = scheduled
            perform(state.machine.add(reference, endpoint: endpoint, policy: policy), state.tasks)
            return probe
        }
        // Only an endpoint not probed yet: a probe per task (a name resolution, a route lookup
        // and the interface list) cost more than the task's own scheduling.
        if probe { requestProbe() }
    }

    /// Forgets a task that completed; held tasks may start.
    func remove(_ reference: TaskReference) {
        state.withLock { state in
            state.tasks[reference] = nil
            perform(state.machine.remove(reference), state.tasks)
        }
    }

    /// The task's phase, `nil` when it is not scheduled.
    func phase(of reference: TaskReference) -> SchedulerMachine.Phase? {
        state.withLock { $0.machine.phase(of: reference) }
    }

    /// Asks for the endpoints to be probed again (an attempt failed: the network may be gone
    /// without a change the kernel reported, e.g. a task started while already offline).
    func requestProbe() { monitor.withLock { $0?.requestEvaluation() } }

    /// On the monitor's thread: probes each endpoint and applies what it found.
    private func probe() {
        let endpoints = state.withLock { $0.machine.endpointsToProbe }
        let interfaces = ReachabilityProbe.interfaces()
        state.withLock { state in
            state.routes.keep(only: endpoints)
            state.routes.observe(links: interfaces.running)
        }
        for endpoint in endpoints {
            let lookups = ReachabilityProbe.lookups(endpoint, interfaces: interfaces)
            state.withLock { state in
                let reachability = state.routes.reachability(of: endpoint, lookups)
                let actions = state.machine.set(reachability, of: endpoint)
                if !actions.isEmpty { logger.info("\(endpoint) is \(reachability)") }
                perform(actions, state.tasks)
            }
        }
    }

    /// Performs `actions` on `tasks`. Called under the state lock, so that effects happen in the
    /// order the machine decided them; none of them calls back into the scheduler (resuming and
    /// suspending only change the task's state; reports go to the host's event stream).
    private func perform(_ actions: [SchedulerMachine.Action], _ tasks: [TaskReference: Scheduled]) {
        for action in actions {
            switch action {
            case .start(let reference): tasks[reference]?.task.resume()
            case .suspend(let reference): tasks[reference]?.task.suspend()
            case .reportWaiting(let reference):
                logger.info("\(reference) waits for connectivity")
                tasks[reference]?.reportWaiting()
            }
        }
    }

    static func endpoint(of url: URL) -> Endpoint {
        let secure = url.scheme?.lowercased() == "https"
        return Endpoint(host: url.host ?? "", port: url.port ?? (secure ? 443 : 80))
    }
}
