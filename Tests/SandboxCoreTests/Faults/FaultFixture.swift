#if DEBUG
    import SandboxCore
    import SystemPackage
    import Testing

    /// A container with one folder whose name is unique to the test, so that faults injected for paths
    /// containing it (``FaultInjection``) touch this test's system calls only.
    struct FaultFixture {
        let io: IOFixture
        /// The folder's name: the marker faults are scoped by.
        let marker: String

        init() throws {
            io = try IOFixture()
            marker = "faults-\(UInt64.random(in: 0 ... .max))"
            try io.hostMakeDirectory(marker)
        }

        var root: ConfinedRoot { io.root }

        /// `name` inside the folder, as a container path.
        func path(_ name: String) throws -> ContainerPath { try ioPath("\(marker)/\(name)") }

        /// The host's view of the folder's names.
        var names: [String] { io.hostList(marker) }

        /// The host's view of the file `name` in the folder.
        func hostRead(_ name: String) -> [UInt8]? { io.hostRead("\(marker)/\(name)") }

        /// Injects `errno` into `calls` on this fixture's paths while `body` runs.
        @discardableResult
        func inject(
            _ errno: Errno, into calls: Set<String>, times: Int = .max, during body: () async throws -> Void
        ) async rethrows -> Int {
            let fault = FaultInjection.inject(errno, into: calls, onPathsContaining: marker, times: times)
            defer { fault.remove() }
            try await body()
            return fault.fired
        }
    }

    /// Every call that writes a file's bytes in the core.
    let writeCalls: Set<String> = ["write", "writev", "pwrite", "pwritev", "copy_file_range", "sendfile"]
#endif
