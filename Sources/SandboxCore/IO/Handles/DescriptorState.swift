/// Who may use a shared descriptor, as a pure state machine.
///
/// Each system call on the descriptor holds a lease for its duration. Closing while leases are
/// held only marks the descriptor: the last lease to end closes it. So a descriptor is closed
/// exactly once, and never while a call is using it (closing under a running `pread` could let the
/// number be reused for another file, which the `pread` would then read).
struct DescriptorState: Equatable {
    enum Phase: Equatable {
        case open
        /// Close was requested; the descriptor is closed when the last lease ends.
        case closing
        case closed
    }

    private(set) var phase: Phase = .open
    private(set) var leases = 0

    init() {}

    /// The state packed into one word, so that ``SharedDescriptor`` can keep it in an atomic and
    /// change it with compare-and-exchange (no lock for a 4 KiB read to take twice): the phase in
    /// the two low bits, the leases above them.
    var word: Int { leases << 2 | (phase == .open ? 0 : phase == .closing ? 1 : 2) }

    /// The state a ``word`` packed.
    init(word: Int) {
        leases = word >> 2
        phase = word & 3 == 0 ? .open : word & 3 == 1 ? .closing : .closed
    }

    /// Takes a lease for one call. `false` once close has been requested.
    mutating func acquire() -> Bool {
        guard phase == .open else { return false }
        leases += 1
        return true
    }

    /// Ends a lease. `true` when the caller must now close the descriptor.
    mutating func release() -> Bool {
        precondition(leases > 0, "a descriptor lease was released twice")
        leases -= 1
        if leases == 0 && phase == .closing {
            phase = .closed
            return true
        }
        return false
    }

    /// Asks for the descriptor to be closed. `true` when the caller must close it now; `false` when a
    /// lease will, or when it was already closing or closed.
    mutating func requestClose() -> Bool {
        guard phase == .open else { return false }
        if leases == 0 {
            phase = .closed
            return true
        }
        phase = .closing
        return false
    }
}
