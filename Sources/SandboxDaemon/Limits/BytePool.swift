/// Bytes held by connections, counted against a limit per connection and a budget they share.
///
/// A pure value (no I/O, no clock): ``ConnectionGate`` keeps one for frames being received and one
/// for queued answers, and performs what its results say. A connection holds up to
/// ``Limits/allowance`` bytes for free; what it holds beyond that comes from the shared
/// ``Limits/budget``. When a connection asks for more than the budget has left, the connection
/// that holds the most of it is evicted (its share freed at once), unless that is the one asking,
/// which is refused: a client that stalls accumulates, one that keeps up does not.
struct BytePool: Sendable, Equatable {
    struct Limits: Sendable, Equatable {
        /// Bytes every connection may hold whatever the others do.
        var allowance: Int
        /// Bytes one connection may hold at most.
        var maximum: Int
        /// Bytes beyond the allowances that all connections together may hold.
        var budget: Int
    }

    /// What became of a request for bytes.
    enum Outcome: Sendable, Equatable {
        /// Granted; the connections listed were evicted to make room (their bytes no longer count).
        case granted(evicted: [Int])
        /// Refused: the connection would hold more than ``Limits/maximum``.
        case overMaximum(holding: Int)
        /// Refused: the budget is spent and this connection holds the most of it.
        case overBudget(holding: Int)
    }

    let limits: Limits
    private var held: [Int: Int] = [:]
    /// The bytes held beyond the allowances, all connections together.
    private(set) var budgetInUse = 0

    init(_ limits: Limits) { self.limits = limits }

    /// The bytes `connection` holds.
    func holding(_ connection: Int) -> Int { held[connection] ?? 0 }

    private func excess(_ bytes: Int) -> Int { max(0, bytes - limits.allowance) }

    /// Sets what `connection` holds to `bytes`, evicting the largest holders of the budget as
    /// needed; refused, it keeps what it held.
    mutating func resize(_ connection: Int, to bytes: Int) -> Outcome {
        let old = holding(connection)
        guard bytes <= limits.maximum || bytes <= old else { return .overMaximum(holding: bytes) }
        var evicted: [Int] = []
        var inUse = budgetInUse - excess(old) + excess(bytes)
        while inUse > limits.budget {
            let largest = held.filter { $0.key != connection && !evicted.contains($0.key) }
                .max { excess($0.value) < excess($1.value) }
            guard let largest, excess(largest.value) > excess(bytes) else { return .overBudget(holding: bytes) }
            evicted.append(largest.key)
            inUse -= excess(largest.value)
        }
        for connection in evicted { held[connection] = nil }
        held[connection] = bytes == 0 ? nil : bytes
        budgetInUse = inUse
        return .granted(evicted: evicted)
    }

    /// Adds `bytes` to what `connection` holds.
    mutating func add(_ bytes: Int, to connection: Int) -> Outcome {
        resize(connection, to: holding(connection) + bytes)
    }

    /// Takes `bytes` off what `connection` holds (never below zero: bytes of a connection that was
    /// evicted or removed are no longer counted).
    mutating func remove(_ bytes: Int, from connection: Int) {
        let old = holding(connection)
        let new = max(0, old - bytes)
        budgetInUse -= excess(old) - excess(new)
        held[connection] = new == 0 ? nil : new
    }

    /// Forgets `connection`.
    mutating func removeAll(of connection: Int) { remove(holding(connection), from: connection) }
}
