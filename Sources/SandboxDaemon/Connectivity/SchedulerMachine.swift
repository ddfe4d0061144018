/// A task the daemon schedules: its session and its identifier there.
struct TaskReference: Hashable, Sendable, CustomStringConvertible {
    var key: SessionKey
    var id: Int

    var description: String { "\(key)#\(id)" }
}

/// Where a task connects: its URL's host and port. Reachability is decided per endpoint.
struct Endpoint: Hashable, Sendable, CustomStringConvertible {
    var host: String
    var port: Int

    var description: String { "\(host):\(port)" }
}

/// When the daemon's tasks may transfer: the I/O-free policy for waiting for connectivity and for
/// discretionary tasks, in the style of a state machine whose inputs return the actions to take
/// (the owner performs them outside its lock).
///
/// A task runs when its endpoint is reachable (or it does not wait for connectivity: it then
/// tries and fails on its own) and, if it is discretionary, when no other (non-discretionary) task
/// of the daemon — which serves one user — is running. A running task that stops qualifying is
/// suspended (its partial file kept; resuming continues it in a new run, whose retry budget is
/// whole: waiting never counts as a failed attempt); a task that goes into waiting for
/// connectivity is reported once per wait (iOS's `taskIsWaitingForConnectivity`).
///
/// With ``waitsForFirstProbe``, a task that waits for connectivity does not start before its
/// endpoint has been probed once: a task added while the machine is already offline then waits
/// without a first attempt that fails and costs a retry.
struct SchedulerMachine: Sendable {
    /// How a task waits.
    struct Policy: Sendable, Hashable {
        /// Wait while the endpoint is unreachable instead of failing (on by default, as for iOS's
        /// background sessions).
        var waitsForConnectivity = true
        /// Run only while no other task runs.
        var isDiscretionary = false
    }

    enum Phase: Sendable, Hashable {
        /// Added, not yet decided (or, with ``SchedulerMachine/waitsForFirstProbe``, its endpoint
        /// not probed yet).
        case new
        case running
        case waitingForConnectivity
        /// Discretionary, held while other tasks run.
        case waitingForOtherTransfers
    }

    enum Action: Sendable, Hashable {
        /// Resume the task (start it, or continue it from its partial file).
        case start(TaskReference)
        /// Suspend the running task, keeping its partial file.
        case suspend(TaskReference)
        /// Report that the task waits for connectivity.
        case reportWaiting(TaskReference)
    }

    private struct Entry: Sendable {
        var endpoint: Endpoint
        var policy: Policy
        /// When it was added: actions come in that order.
        var order: Int
        var phase: Phase = .new
    }

    private var entries: [TaskReference: Entry] = [:]
    private var nextOrder = 0
    /// How many tasks use each endpoint.
    private var endpointUse: [Endpoint: Int] = [:]
    /// How many tasks are discretionary: while none is, a task's phase depends on its own entry
    /// and endpoint only, so adding or removing one settles that task alone (a batch of 1,000
    /// queued tasks would otherwise settle every task 1,000 times).
    private var discretionaryCount = 0
    private var unreachable: Set<Endpoint> = []
    /// Endpoints with a probe result, while a task uses them.
    private var probed: Set<Endpoint> = []
    /// Whether a waiting-capable task is held until its endpoint's first probe result: only when
    /// someone probes (the daemon's ``NetworkMonitor`` runs), or such tasks would never start.
    let waitsForFirstProbe: Bool

    init(waitsForFirstProbe: Bool = false) {
        self.waitsForFirstProbe = waitsForFirstProbe
    }

    /// The task's phase, `nil` when it is not scheduled.
    func phase(of task: TaskReference) -> Phase? { entries[task]?.phase }

    /// Whether a task to `endpoint` with `policy` needs a probe before the machine knows enough:
    /// its endpoint has none yet (later changes of a probed endpoint come from the network's
    /// change notifications, or a failed attempt's request).
    func needsProbe(_ endpoint: Endpoint, policy: Policy) -> Bool {
        policy.waitsForConnectivity && !probed.contains(endpoint)
    }

    /// The endpoints of tasks that wait for connectivity: what a change of the network should probe.
    var endpointsToProbe: Set<Endpoint> {
        Set(entries.values.filter(\.policy.waitsForConnectivity).map(\.endpoint))
    }

    /// Schedules `task`: it starts now, or waits (reported when for connectivity).
    mutating func add(_ task: TaskReference, endpoint: Endpoint, policy: Policy) -> [Action] {
        var order = nextOrder
        if let previous = entries[task] {
            order = previous.order
            forget(previous)
        } else {
            nextOrder += 1
        }
        entries[task] = Entry(endpoint: endpoint, policy: policy, order: order)
        endpointUse[endpoint, default: 0] += 1
        if policy.isDiscretionary { discretionaryCount += 1 }
        return discretionaryCount == 0 ? settle(only: task) : settle()
    }

    /// Forgets `task` (it completed): held discretionary tasks may start.
    mutating func remove(_ task: TaskReference) -> [Action] {
        guard let entry = entries.removeValue(forKey: task) else { return [] }
        forget(entry)
        return discretionaryCount == 0 ? [] : settle()
    }

    /// Drops what `entry` counted; what is known of an endpoint no task uses any more is dropped
    /// too (a new task probes again).
    private mutating func forget(_ entry: Entry) {
        if entry.policy.isDiscretionary { discretionaryCount -= 1 }
        let use = (endpointUse[entry.endpoint] ?? 1) - 1
        endpointUse[entry.endpoint] = use > 0 ? use : nil
        if use <= 0 {
            unreachable.remove(entry.endpoint)
            probed.remove(entry.endpoint)
        }
    }

    /// A probe found `endpoint` reachable or not.
    mutating func set(_ reachability: Reachability, of endpoint: Endpoint) -> [Action] {
        switch reachability {
        case .reachable: unreachable.remove(endpoint)
        case .unreachable: unreachable.insert(endpoint)
        }
        if endpointUse[endpoint] != nil { probed.insert(endpoint) }
        return settle()
    }

    /// Moves `task` alone to the phase the policy wants for it: enough while no task is
    /// discretionary (nothing else depends on it).
    private mutating func settle(only task: TaskReference) -> [Action] {
        guard let entry = entries[task] else { return [] }
        return transition(task, entry, to: connectivityPhase(entry) ?? .running)
    }

    /// The actions that move `task` from its phase to `phase`, which it records.
    private mutating func transition(_ task: TaskReference, _ entry: Entry, to phase: Phase) -> [Action] {
        guard phase != entry.phase else { return [] }
        var actions: [Action] = []
        if entry.phase == .running { actions.append(.suspend(task)) }
        if phase == .running { actions.append(.start(task)) }
        if phase == .waitingForConnectivity { actions.append(.reportWaiting(task)) }
        var entry = entry
        entry.phase = phase
        entries[task] = entry
        return actions
    }

    /// Moves every task to the phase the policy wants for it now.
    private mutating func settle() -> [Action] {
        var wanted: [TaskReference: Phase] = [:]
        for (task, entry) in entries where !entry.policy.isDiscretionary {
            wanted[task] = connectivityPhase(entry) ?? .running
        }
        let othersRunning = wanted.values.contains(.running)
        for (task, entry) in entries where entry.policy.isDiscretionary {
            wanted[task] = connectivityPhase(entry) ?? (othersRunning ? .waitingForOtherTransfers : .running)
        }
        var actions: [Action] = []
        for (task, entry) in entries.sorted(by: { $0.value.order < $1.value.order }) {
            guard let phase = wanted[task] else { continue }
            actions += transition(task, entry, to: phase)
        }
        return actions
    }

    private func connectivityPhase(_ entry: Entry) -> Phase? {
        guard entry.policy.waitsForConnectivity else { return nil }
        if unreachable.contains(entry.endpoint) { return .waitingForConnectivity }
        // Not probed yet: held, unreported, until the first probe says which.
        if waitsForFirstProbe && !probed.contains(entry.endpoint) { return .new }
        return nil
    }
}
