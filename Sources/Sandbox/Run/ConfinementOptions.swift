/// What ``ConfinedLaunch`` allows beyond the app's own container and the system's libraries.
public struct ConfinementOptions: Sendable, Hashable {
    /// Blocks TCP connect and bind (Landlock ABI 4) and, from ABI 6, connecting to abstract Unix
    /// sockets outside the sandbox; the seccomp filter refuses creating a socket of any family
    /// (`EACCES`: UDP, ICMP, raw, netlink). Unix sockets are refused without it too (only
    /// `socketpair` makes them), and `io_uring` (`EPERM`).
    public var blocksNetwork: Bool
    /// Host paths the app may also read (files, or folders and everything beneath them).
    public var readablePaths: [String]
    /// Runs even when the kernel's Landlock ABI is below ``LandlockABI/required`` (or missing),
    /// enforcing what it can; ``ConfinedLaunch/unenforced`` says what is not.
    public var bestEffort: Bool

    /// Options that allow nothing beyond the container and the system's libraries, with the network
    /// open and the full Landlock ABI required, unless arguments say otherwise.
    public init(blocksNetwork: Bool = false, readablePaths: [String] = [], bestEffort: Bool = false) {
        self.blocksNetwork = blocksNetwork
        self.readablePaths = readablePaths
        self.bestEffort = bestEffort
    }
}
