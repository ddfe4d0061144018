import Glibc
import SandboxTesting

/// `sandboxd` as apps meet it: started on demand by `sandbox download --background` (detached,
/// so not the soak's child). The soak finds it by its command line, samples its memory, kills it
/// (a fault) and calls any other end a violation: with `SANDBOXD_IDLE_EXIT` far away, a daemon
/// ends only when killed.
actor DaemonWatch {
    private let device: SoakDevice
    private var known: Set<pid_t> = []
    private var killed: Set<pid_t> = []

    init(device: SoakDevice) { self.device = device }

    /// Looks at the running daemons: records their peaks, and a violation for one that ended
    /// without the soak's SIGKILL.
    func sample() async {
        let current = Set(device.daemonPIDs())
        for pid in known.subtracting(current) where !killed.contains(pid) {
            await device.recorder.violation("sandboxd (pid \(pid)) ended by itself: crashed or exited")
        }
        if current.count > 1 { await device.recorder.count("samples with \(current.count) sandboxd for one home") }
        known = current
        for pid in current {
            if let bytes = SoakDevice.peakMemory(of: pid) { await device.recorder.peak("sandboxd", bytes) }
        }
    }

    /// Sends SIGKILL to the running daemon (a fault); `false` when none runs.
    @discardableResult
    func kill() async -> Bool {
        await sample()
        guard let pid = known.first else { return false }
        killed.insert(pid)
        Glibc.kill(pid, SIGKILL)
        await device.recorder.count("SIGKILL sandboxd")
        return true
    }

    /// Starts a daemon when none runs (as the next `sandbox download --background` would).
    func ensureRunning() async throws {
        await sample()
        guard known.isEmpty else { return }
        let started = try await device.run(
            device.built("sandboxd"),
            ["--home", device.home, "--runtime-directory", device.runtime + "/sandbox", "--detach"],
            bound: .seconds(60))
        if !started.succeeded { await device.recorder.count("sandboxd --detach failed: \(started.failure)") }
        await sample()
    }

    /// Stops every daemon of the home with SIGTERM; one still there after 30 s hung (a violation) and is killed.
    func stop() async {
        await sample()
        let running = known
        for pid in running {
            killed.insert(pid)
            Glibc.kill(pid, SIGTERM)
        }
        let gone = await Self.ended(running, device: device)
        if !gone {
            await device.recorder.violation("hung: sandboxd did not end within 30 s of SIGTERM")
            for pid in device.daemonPIDs() where running.contains(pid) { Glibc.kill(pid, SIGKILL) }
        }
    }

    /// Whether every one of `pids` has ended within 30 s.
    private nonisolated static func ended(_ pids: Set<pid_t>, device: SoakDevice) async -> Bool {
        await eventually(timeout: .seconds(30)) { Set(device.daemonPIDs()).isDisjoint(with: pids) }
    }
}
