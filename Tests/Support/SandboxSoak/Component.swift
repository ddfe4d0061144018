import Glibc
import SandboxTesting

/// A long-lived process of the soak (`sandbox share`, `sandbox watch`, a `sandbox run` program,
/// `sandboxd`), kept running: started again whenever it ends. An end the soak did not cause is
/// judged — by a signal, a crash; with a failing status, a violation too — and its memory peak
/// (VmHWM) is sampled while it runs.
actor Component {
    /// "share", "watch", "run", "sandboxd": the name its counters and peaks are kept under.
    let kind: String
    /// "share com.example.a".
    let name: String
    private let device: SoakDevice
    /// Starts the process and returns once it is ready (a share has printed its URL).
    private let starter: @Sendable () async throws -> RunningProgram
    /// Runs when the process has ended, before it is started again.
    private let ended: @Sendable () async -> Void

    private var program: RunningProgram?
    private var killedBySoak = false
    private var held = false
    private var stopping = false
    private(set) var starts = 0

    init(
        kind: String, name: String, device: SoakDevice, ended: @escaping @Sendable () async -> Void = {},
        starter: @escaping @Sendable () async throws -> RunningProgram
    ) {
        self.kind = kind
        self.name = name
        self.device = device
        self.ended = ended
        self.starter = starter
    }

    /// Starts the process, and again whenever it ends, until ``stop()``.
    func supervise() async {
        while !stopping {
            if held {
                do { try await Task.sleep(for: .milliseconds(20)) } catch { return }
                continue
            }
            let running: RunningProgram
            do {
                running = try await starter()
            } catch {
                await device.recorder.violation("\(name) did not start: \(error)")
                do { try await Task.sleep(for: .seconds(1)) } catch { return }
                continue
            }
            program = running
            starts += 1
            let exit = await running.exit
            program = nil
            await ended()
            let ours = killedBySoak
            killedBySoak = false
            if ours { continue }
            let stderr = ((try? running.standardError()) ?? "").suffix(800)  // for the message only
            if let signal = exit.signal {
                await device.recorder.violation("crashed: \(name) ended by signal \(signal); stderr: \(stderr)")
            } else if exit.status != 0 {
                await device.recorder.violation("\(name) exited with \(exit) by itself; stderr: \(stderr)")
            } else {
                await device.recorder.count("\(kind) ended by itself (status 0)")
            }
        }
    }

    /// Sends SIGKILL to the process (a fault); `false` when none runs.
    @discardableResult
    func kill() async -> Bool {
        guard let program, program.isRunning, !stopping, !killedBySoak else { return false }
        killedBySoak = true
        // The program too: `sandbox run` does not take its program down when it is killed, and
        // an orphaned program would write on (it is the program the fault is aimed at).
        let below = SoakDevice.descendants(of: program.pid)
        program.signal(SIGKILL)
        for pid in below { Glibc.kill(pid, SIGKILL) }
        await device.recorder.count("SIGKILL \(kind)")
        return true
    }

    /// Kills the process and starts it again only on ``release()``: a `sandbox run` program the
    /// owner stops before an operation that a running program refuses.
    func hold() async {
        held = true
        await kill()
        while program != nil {
            do { try await Task.sleep(for: .milliseconds(10)) } catch { return }
        }
    }

    /// Lets ``supervise()`` start the process again after ``hold()``.
    func release() { held = false }

    /// Samples the process's peak memory into the recorder.
    func sampleMemory() async {
        guard let pid = program?.pid, let bytes = SoakDevice.peakMemory(of: pid) else { return }
        await device.recorder.peak(kind, bytes)
    }

    /// The process's standard output so far (a watch's events).
    func output() -> String { (try? program?.standardOutput()) ?? "" }  // ended: nothing more to read

    /// Stops the process with SIGTERM; one that does not end within 30 s hung (a violation), one
    /// that ends by a signal other than SIGTERM crashed.
    func stop() async {
        stopping = true
        held = false
        guard let program else { return }
        killedBySoak = true
        let below = SoakDevice.descendants(of: program.pid)
        program.signal(SIGTERM)
        let exit = await program.exit(timeout: .seconds(30))
        let outliving = below.filter { Glibc.kill($0, 0) == 0 }
        if !outliving.isEmpty {
            await device.recorder.count("\(kind): processes outliving its SIGTERM (killed)", by: outliving.count)
            for pid in outliving { Glibc.kill(pid, SIGKILL) }
        }
        if exit.timedOut {
            await device.recorder.violation("hung: \(name) did not end within 30 s of SIGTERM")
        } else if let signal = exit.signal, signal != SIGTERM {
            await device.recorder.violation("crashed: \(name) ended by signal \(signal) on SIGTERM")
        }
    }
}
