import NIOCore
import Synchronization

/// The server's open connections (``ConnectionTable``) with their channels: admits each new one,
/// and closes the connections the table evicts — outside its lock.
final class ConnectionRegistry: Sendable {
    private struct State {
        var table: ConnectionTable
        var channels: [ConnectionTable.ID: any Channel] = [:]
    }

    private let state: Mutex<State>
    let budget: DescriptorBudget
    var limits: ConnectionLimits { budget.limits }

    init(budget: DescriptorBudget) {
        self.budget = budget
        state = Mutex(State(table: ConnectionTable(limits: budget.limits)))
    }

    /// How many connections are held.
    var count: Int { state.withLock { $0.table.count } }

    /// Admits `channel` from `client` and returns its number, closing the connections that make
    /// room for it; `nil` when there is no room (the caller closes `channel`).
    func open(_ channel: any Channel, client: String) -> ConnectionTable.ID? {
        let capacity = budget.capacity()
        let (admission, evicted) = state.withLock { state -> (ConnectionTable.Admission, [any Channel]) in
            let admission = state.table.open(client: client, capacity: capacity)
            guard case .admitted(let id, let evicting) = admission else { return (admission, []) }
            state.channels[id] = channel
            return (admission, evicting.compactMap { state.channels.removeValue(forKey: $0) })
        }
        for channel in evicted { channel.close(promise: nil) }
        guard case .admitted(let id, _) = admission else { return nil }
        return id
    }

    func authenticate(_ id: ConnectionTable.ID) { state.withLock { $0.table.authenticate(id) } }
    func requestStarted(_ id: ConnectionTable.ID) { state.withLock { $0.table.requestStarted(id) } }
    func requestFinished(_ id: ConnectionTable.ID) { state.withLock { $0.table.requestFinished(id) } }

    /// Counts the descriptors the server holds besides its connections (``DescriptorBudget``).
    func measureDescriptors() {
        budget.measure(connections: count)
    }

    /// Forgets the connection `id`, closed.
    func closed(_ id: ConnectionTable.ID) {
        state.withLock { state in
            state.table.remove(id)
            state.channels[id] = nil
        }
    }

    /// Closes the `count` oldest connections that have not logged in and are not answering a
    /// request (when the process runs out of descriptors); returns how many it closed.
    @discardableResult
    func evictOldest(_ count: Int) -> Int {
        let evicted = state.withLock { state -> [any Channel] in
            state.table.evictOldest(count).compactMap { state.channels.removeValue(forKey: $0) }
        }
        for channel in evicted { channel.close(promise: nil) }
        return evicted.count
    }
}
