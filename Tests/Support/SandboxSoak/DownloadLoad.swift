import Foundation
import SandboxTesting
import SandboxTransferTesting

/// An app's background downloads: files of random size served by nginx, handed to `sandboxd`
/// with `sandbox download --background --to documents --sha256`, and their completion read back
/// from `sandbox downloads --json`.
struct DownloadLoad: Sendable {
    let app: String
    let index: Int
    let device: SoakDevice
    let server: NginxServer
    let daemon: DaemonWatch
    /// Whether a failed download is a violation (``SoakOptions/downloadsMustComplete``).
    let mustComplete: Bool

    private struct Pending: Sendable {
        var sha256: String
        var start: ContinuousClock.Instant
    }

    /// Submits a download every second or so until `deadline`, then waits up to `drain` for the
    /// ones under way; records every completed one in `ledger`.
    func load(until deadline: ContinuousClock.Instant, drain: Duration, ledger: Ledger, seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed, stream: 200 + index)
        var pending: [Int: Pending] = [:]
        var number = 0
        while ContinuousClock.now < deadline {
            number += 1
            let size = Int.random(in: 1...(3 << 20), using: &random)
            let bytes = TestData.bytes(size, seed: random.next())
            let name = "soak-\(index)-\(number).bin"
            try server.serve(bytes, as: name)
            // Some at nginx's slow rate, so that kills and restores meet downloads under way.
            let route = Bool.random(using: &random) ? "/slow/" : "/files/"
            let sha256 = TestData.sha256(bytes)
            let start = ContinuousClock.now
            let submitted = try await device.sandbox(
                ["download", app, server.url(route + name), "--background", "--to", "documents", "--sha256", sha256],
                bound: .seconds(60))
            if submitted.succeeded,
                let task = Int(submitted.output.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                pending[task] = Pending(sha256: sha256, start: start)
                await device.recorder.count("downloads submitted")
            } else {
                await device.recorder.count("downloads refused: \(submitted.failure)")
            }
            try await collect(&pending, ledger: ledger)
            try await Task.sleep(for: .milliseconds(Int.random(in: 300...1500, using: &random)))
        }
        let drained = ContinuousClock.now + drain
        while !pending.isEmpty && ContinuousClock.now < drained {
            try await daemon.ensureRunning()  // a daemon killed last resumes its tasks when started again
            try await collect(&pending, ledger: ledger)
            try await Task.sleep(for: .milliseconds(200))
        }
        await device.recorder.count("downloads never finished", by: pending.count)
    }

    /// Reads the app's tasks; records the completed ones and forgets the failed ones.
    private func collect(_ pending: inout [Int: Pending], ledger: Ledger) async throws {
        guard !pending.isEmpty else { return }
        let listed = try await device.sandbox(["downloads", app, "--json"], bound: .seconds(60))
        guard listed.succeeded,
            let rows = try? JSONSerialization.jsonObject(with: Data(listed.output.stdout.utf8)) as? [[String: Any]]
        else {
            await device.recorder.count("downloads listing failed: \(listed.failure)")
            return
        }
        let now = ContinuousClock.now
        for row in rows where row["background"] as? Bool == true {
            guard let task = row["taskIdentifier"] as? Int, let entry = pending[task],
                let state = row["state"] as? String
            else { continue }
            switch state {
            case "completed":
                pending[task] = nil
                guard let path = row["path"] as? String, path.hasPrefix("Documents/") else {
                    await device.recorder.violation(
                        "download \(app) #\(task) completed without a Documents path: \(row)")
                    continue
                }
                await ledger.record(
                    Ledger.Entry(
                        source: .download, app: app, path: String(path.dropFirst("Documents/".count)),
                        sha256: entry.sha256, start: entry.start, end: now, acknowledged: true))
                await device.recorder.count("downloads completed")
            case "failed", "cancelled":
                pending[task] = nil
                // Counted by code and message, the numbers in it (names, sizes) masked: one line per cause.
                let message = String((row["message"] as? String ?? "").map { $0.isNumber ? "#" : $0 }.prefix(160))
                await device.recorder.count(
                    "downloads \(state): \(row["error"] as? String ?? "no error code"): \(message)")
                if mustComplete {
                    await device.recorder.violation("download \(app) #\(task) \(state): \(row)")
                }
            default: continue
            }
        }
    }
}
