import Foundation
import SandboxTesting

/// Picks, at random from the seed, a lifecycle operation or a kill every second or so, runs it
/// and counts how it ended; restores go into the ledger with their outcome.
struct ChaosDriver: Sendable {
    /// What the driver acts on for one app.
    struct App: Sendable {
        var name: String
        var share: Component
        var watch: Component
        var run: Component
        /// The unsigned source of its bundle, signed again with a new version for each update.
        var bundleSource: String
    }

    let device: SoakDevice
    let apps: [App]
    let daemon: DaemonWatch
    let ledger: Ledger
    let faults: Set<SoakOptions.Fault>
    let snapshot: String
    let key: String
    let passcode: String

    /// Acts until `deadline`.
    func drive(until deadline: ContinuousClock.Instant, seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed, stream: 0)
        let choices = SoakOptions.Fault.allCases.filter { faults.contains($0) && $0 != .killCommand }
        var version = 1
        while ContinuousClock.now < deadline, !choices.isEmpty {
            try await Task.sleep(for: .milliseconds(Int.random(in: 200...1500, using: &random)))
            let app = apps[Int.random(in: 0..<apps.count, using: &random)]
            // The CLI killed midway: at a random moment of the operation's first half second.
            let killAfter: Duration? =
                faults.contains(.killCommand) && Int.random(in: 0..<5, using: &random) == 0
                ? .milliseconds(Int.random(in: 5...500, using: &random)) : nil
            // A running program refuses restore, update and restart: half the time its owner stops it first.
            let stopRun = Bool.random(using: &random)
            let fault = choices[Int.random(in: 0..<choices.count, using: &random)]
            switch fault {
            case .restore:
                if stopRun { await app.run.hold() }
                let start = ContinuousClock.now
                let outcome = try await device.sandbox(
                    ["restore", app.name, device.repository, "--snapshot", snapshot], killAfter: killAfter)
                let end = ContinuousClock.now
                await app.run.release()
                await ledger.record(
                    Ledger.Restore(
                        app: app.name, start: start, end: end,
                        outcome: outcome.killed ? .killed : outcome.succeeded ? .completed : .failed))
                await count("restore", outcome)
            case .update:
                if stopRun { await app.run.hold() }
                version += 1
                let outcome = try await update(app, version: version, killAfter: killAfter)
                await app.run.release()
                await count("update", outcome)
            case .purge:
                await count("purge", try await device.sandbox(["purge", "--bytes", "1M"], killAfter: killAfter))
            case .restart:
                if stopRun { for app in apps { await app.run.hold() } }
                await count("restart", try await device.sandbox(["restart"], killAfter: killAfter))
                for app in apps { await app.run.release() }
            case .lock:
                await count("lock", try await device.sandbox(["lock"], killAfter: killAfter))
                try await Task.sleep(for: .milliseconds(Int.random(in: 0...2000, using: &random)))
                await count("unlock", try await device.sandbox(["unlock"], input: Array("\(passcode)\n".utf8)))
            case .killShare: await app.share.kill()
            case .killDaemon: await daemon.kill()
            case .killRun: await app.run.kill()
            case .killWatch: await app.watch.kill()
            case .killCommand: break
            }
        }
    }

    /// Signs the bundle source as `version` and installs it with `sandbox update`.
    private func update(_ app: App, version: Int, killAfter: Duration?) async throws -> SoakDevice.Outcome {
        try Data(infoPlist(identifier: app.name, version: String(version)).utf8).write(
            to: URL(fileURLWithPath: app.bundleSource + "/Info.plist"))
        let signed = try await device.sandbox(["sign", app.bundleSource, "--key", key])
        guard signed.succeeded else { throw SoakError("sandbox sign: \(signed.output.stderr)") }
        return try await device.sandbox(["update", app.name, "--bundle", app.bundleSource], killAfter: killAfter)
    }

    private func count(_ operation: String, _ outcome: SoakDevice.Outcome) async {
        let result = outcome.killed ? "killed midway" : outcome.succeeded ? "completed" : "failed: \(outcome.failure)"
        await device.recorder.count("\(operation) \(result)")
    }
}

/// A bundle's Info.plist; it declares file sharing, as the soak shares every app.
func infoPlist(identifier: String, version: String) -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>\(identifier)</string>\
    <key>CFBundleVersion</key><string>\(version)</string><key>UIFileSharingEnabled</key><true/></dict></plist>

    """
}
