import Foundation
import Glibc
import SandboxTesting
import SandboxTransferTesting

/// The soak test of the whole system: several apps, each with a real `sandbox share` under a
/// WebDAV client's load, background downloads through `sandboxd` from nginx, a `sandbox watch`
/// and a `sandbox run` program writing into its Documents, while a chaos driver restores,
/// updates, purges, restarts, locks and kills at random. At the end it checks the invariants:
///
/// - every upload the share acknowledged, and every download `sandboxd` completed, is in the
///   app's Documents byte for byte, unless a restore that began after it removed it (the ledger
///   orders them); an upload that failed is absent or whole, never partial; the files made
///   before the backup are there;
/// - nothing outside the home changed (a canary tree the run programs try to write into);
/// - no component crashed (an end by a signal the soak did not send) or ended by itself, no
///   command hung (each runs under a bound), and each long-lived process's VmHWM stayed under
///   the limit.
///
/// The test (`SandboxSoakTests`) and the benchmark (`sandbox-soak-benchmark`) both run this.
public enum Soak {
    /// The external programs a run needs: rclone (the WebDAV client) and nginx (the download server).
    public static let tools = ["rclone", "nginx"]

    /// Whether every one of ``tools`` is installed.
    public static var toolsInstalled: Bool { tools.allSatisfy { tool(named: $0) != nil } }

    /// Runs the soak as `options` say and reports what it did and found.
    ///
    /// - Throws: ``SoakError`` when the run cannot be set up (a tool missing, a set-up command
    ///   failing); a broken invariant is not thrown but listed in the report.
    public static func run(_ options: SoakOptions) async throws -> SoakReport {
        let started = ContinuousClock.now
        guard let rclonePath = tool(named: "rclone") else {
            throw SoakError("rclone is not installed: apt-get install rclone (scripts/install-test-tools does)")
        }
        let rclone = BuiltProgram(path: rclonePath)
        let scratch = try ScratchDirectory.make(prefix: "sandbox-soak")
        defer { scratch.remove() }
        let recorder = SoakRecorder()
        let device = SoakDevice(scratch: scratch.appending("device"), binaries: options.binaries, recorder: recorder)
        for folder in [device.scratch, device.runtime, device.user, device.logs] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let canary = scratch.appending("canary")
        try Canary.make(at: canary, count: 24, seed: options.seed)
        let canaryDigest = Canary.digest(of: canary)

        // The device: a trusted key, apps installed from signed bundles with files in Documents,
        // a passcode, and a backup of every app (the snapshot every restore goes back to).
        let key = device.scratch + "/dev.key"
        try await device.setUp(["keygen", key, "--trust"])
        let names = (0..<options.apps).map { "com.example.soak\($0)" }
        var seeds: [(app: String, path: String, sha256: String)] = []
        for (index, app) in names.enumerated() {
            let source = device.scratch + "/bundles/\(app)/Soak.app"
            try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
            try Data(infoPlist(identifier: app, version: "1").utf8).write(
                to: URL(fileURLWithPath: source + "/Info.plist"))
            try await device.setUp(["sign", source, "--key", key])
            try await device.setUp(["create", app, "--bundle", source])
            for number in 0..<4 {
                let bytes = TestData.bytes(1000 * (number + 1), seed: options.seed &+ UInt64(index * 10 + number))
                let path = "seed-\(number).bin"
                try Data(bytes).write(to: URL(fileURLWithPath: device.documents(app) + "/" + path))
                seeds.append((app, path, TestData.sha256(bytes)))
            }
        }
        let passcode = "271828"
        try await device.setUp(["passcode", "set"], input: Array("\n\(passcode)\n".utf8))
        let backup = try await device.setUp(["backup"] + names + [device.repository, "--json"])
        guard let snapshot = snapshotID(in: backup) else { throw SoakError("no snapshot id in: \(backup)") }
        let server = try await NginxServer.start(slowRate: "2m")

        let ledger = Ledger()
        let daemon = DaemonWatch(device: device)
        let shares = names.enumerated().map { ShareLoad(app: $1, index: $0, device: device, rclone: rclone) }
        let apps = names.enumerated().map { index, app in
            ChaosDriver.App(
                name: app, share: shares[index].component, watch: watch(app, device: device),
                run: runProgram(app, device: device, canary: canary),
                bundleSource: device.scratch + "/bundles/\(app)/Soak.app")
        }
        let components = apps.flatMap { [$0.share, $0.watch, $0.run] }
        let driver = ChaosDriver(
            device: device, apps: apps, daemon: daemon, ledger: ledger, faults: options.faults, snapshot: snapshot,
            key: key, passcode: passcode)
        let deadline = ContinuousClock.now + options.duration

        try await withThrowingTaskGroup(of: Void.self) { group in
            for component in components { group.addTask { await component.supervise() } }
            group.addTask {
                while ContinuousClock.now < deadline {
                    await daemon.sample()
                    for component in components { await component.sampleMemory() }
                    try await Task.sleep(for: .milliseconds(500))
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { load in
                load.addTask { try await driver.drive(until: deadline, seed: options.seed) }
                for share in shares {
                    load.addTask { try await share.load(until: deadline, ledger: ledger, seed: options.seed) }
                }
                for (index, app) in names.enumerated() {
                    let downloads = DownloadLoad(
                        app: app, index: index, device: device, server: server, daemon: daemon,
                        mustComplete: options.downloadsMustComplete)
                    load.addTask {
                        try await downloads.load(
                            until: deadline, drain: .seconds(30), ledger: ledger, seed: options.seed)
                    }
                }
                try await load.waitForAll()
            }
            for app in apps {
                let events = await app.watch.output().split(separator: "\n").count
                await recorder.count("watch events printed (last run)", by: events)
            }
            for component in components { await component.stop() }
            try await group.waitForAll()
        }
        await daemon.stop()
        await server.stop()

        // The final checks.
        for violation in try await ledger.verify(on: device) { await recorder.violation(violation) }
        for seed in seeds {
            let contents = FileManager.default.contents(atPath: device.documents(seed.app) + "/" + seed.path)
            if contents.map({ TestData.sha256($0) }) != seed.sha256 {
                await recorder.violation(
                    "\(seed.app) Documents/\(seed.path), made before the backup, is missing or changed")
            }
        }
        if Canary.digest(of: canary) != canaryDigest {
            await recorder.violation("the canary tree outside the home changed")
        }
        for (kind, bytes) in await recorder.peaks where bytes > options.memoryLimit {
            await recorder.violation(
                "\(kind) reached \(bytes >> 20) MiB (VmHWM), over the \(options.memoryLimit >> 20) MiB bound")
        }
        return SoakReport(
            seed: options.seed, apps: options.apps, wallTime: ContinuousClock.now - started,
            counts: await recorder.counts, violations: await recorder.violations, memoryPeaks: await recorder.peaks)
    }

    /// `sandbox watch APP --json`, kept running.
    private static func watch(_ app: String, device: SoakDevice) -> Component {
        Component(kind: "watch", name: "sandbox watch \(app)", device: device) {
            try device.built("sandbox").start(
                ["watch", app, "--json"], environment: device.environment, outputIn: device.logs)
        }
    }

    /// A `sandbox run` program writing files into Documents (each written aside, then renamed),
    /// and trying to write into the canary tree outside, every fifth of a second; kept running.
    private static func runProgram(_ app: String, device: SoakDevice, canary: String) -> Component {
        let script = """
            i=0
            while :; do
                i=$((i+1))
                head -c $(( (i * 7919) % 200000 )) /dev/urandom > Documents/.run.part && mv Documents/.run.part Documents/run-$((i % 16)).bin
                echo escaped > \(canary)/d0/escaped 2>/dev/null
                sleep 0.2
            done
            """
        return Component(kind: "run", name: "sandbox run \(app)", device: device) {
            try device.built("sandbox").start(
                ["run", app, "--", "/bin/sh", "-c", script], environment: device.environment, outputIn: nil)
        }
    }

    /// The snapshot id in `sandbox backup --json`'s output.
    private static func snapshotID(in output: String) -> String? {
        for line in output.split(separator: "\n").reversed() {
            // A line that is not JSON is skipped.
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                let report = object["report"] as? [String: Any], let snapshot = report["snapshot"] as? String
            else { continue }
            return snapshot
        }
        return nil
    }

    /// The absolute path of the program `name` on `PATH` or in the usual system folders.
    static func tool(named name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        let folders = path.split(separator: ":").map(String.init) + ["/usr/bin", "/bin", "/usr/sbin", "/usr/local/bin"]
        return folders.map { "\($0)/\(name)" }.first(where: FileManager.default.isExecutableFile)
    }
}
