import Foundation
import Glibc
import SandboxTesting
import SandboxTransferTesting

/// An app's `sandbox share` and the WebDAV client loading it: rclone uploading files of random
/// size with known content, one at a time, and downloading some of them back.
final class ShareLoad: Sendable {
    /// Where the share listens, as it printed it, with the password in rclone's obscured form.
    struct Endpoint: Sendable {
        var url: String
        var obscured: String
    }

    /// The endpoint of the share that runs now (`nil` while it is restarting).
    actor Current {
        var endpoint: Endpoint?
        func set(_ endpoint: Endpoint?) { self.endpoint = endpoint }
    }

    let app: String
    let index: Int
    let device: SoakDevice
    let rclone: BuiltProgram
    let current = Current()
    let component: Component

    init(app: String, index: Int, device: SoakDevice, rclone: BuiltProgram) {
        self.app = app
        self.index = index
        self.device = device
        self.rclone = rclone
        let current = current
        component = Component(
            kind: "share", name: "sandbox share \(app)", device: device, ended: { await current.set(nil) },
            starter: { try await Self.start(app: app, device: device, rclone: rclone, current: current) })
    }

    /// Starts `sandbox share APP --port 0` and waits (60 s at most) for its URL and pairing code.
    private static func start(
        app: String, device: SoakDevice, rclone: BuiltProgram, current: Current
    ) async throws -> RunningProgram {
        let process = try device.built("sandbox").start(
            ["share", app, "--port", "0"], environment: device.environment, outputIn: device.logs)
        let printed = await eventually(timeout: .seconds(60)) {
            let text = (try? process.standardOutput()) ?? ""  // not written yet: keep waiting
            return value(after: "Pairing code:", in: text) != nil || !process.isRunning
        }
        let text = try process.standardOutput()
        guard printed, let url = value(after: "URL:", in: text), let code = value(after: "Pairing code:", in: text)
        else {
            process.signal(SIGKILL)
            _ = await process.exit(timeout: .seconds(10))
            throw SoakError("sandbox share \(app) printed no URL: \(text) \(try process.standardError().suffix(500))")
        }
        let obscured = try await device.run(rclone, ["obscure", code])
        guard obscured.succeeded else { throw SoakError("rclone obscure: \(obscured.output.stderr)") }
        await current.set(
            Endpoint(url: url, obscured: obscured.output.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
        return process
    }

    /// The text after `label` on the first line that starts with it.
    private static func value(after label: String, in text: String) -> String? {
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(label) {
                let value = trimmed.dropFirst(label.count).trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// Uploads files until `deadline`, recording each in `ledger`; downloads a third of the
    /// acknowledged ones back, and a copy that differs is a violation.
    func load(until deadline: ContinuousClock.Instant, ledger: Ledger, seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed, stream: 100 + index)
        let folder = device.scratch + "/client-\(app)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let configuration = folder + "/rclone.conf"
        var number = 0
        while ContinuousClock.now < deadline {
            guard let endpoint = await current.endpoint else {
                try await Task.sleep(for: .milliseconds(50))
                continue
            }
            number += 1
            // Mostly small files, some up to 4 MiB: several requests, and writes a kill can cut.
            let size =
                Int.random(in: 0...3, using: &random) == 0
                ? Int.random(in: 0...(4 << 20), using: &random)
                : Int.random(in: 0...(64 << 10), using: &random)
            let bytes = TestData.bytes(size, seed: random.next())
            let local = folder + "/upload"
            try Data(bytes).write(to: URL(fileURLWithPath: local))
            let path = "soak/\(number)-\(size).bin"
            let remote = ":webdav,url='\(endpoint.url)',vendor=other,user=sandbox,pass=\(endpoint.obscured):"
            let options = [
                "--config", configuration, "--retries", "1", "--low-level-retries", "1", "--timeout", "30s",
                "--contimeout", "10s",
            ]
            let start = ContinuousClock.now
            let upload = try await device.run(rclone, ["copyto", local, remote + path] + options, bound: .seconds(90))
            let end = ContinuousClock.now
            let sha256 = TestData.sha256(bytes)
            await ledger.record(
                Ledger.Entry(
                    source: .upload, app: app, path: path, sha256: sha256, start: start, end: end,
                    acknowledged: upload.succeeded))
            await device.recorder.count(upload.succeeded ? "uploads acknowledged" : "uploads answered an error")
            if upload.succeeded {
                await device.recorder.count("upload bytes acknowledged", by: size)
            }
            guard upload.succeeded, Int.random(in: 0..<3, using: &random) == 0 else { continue }
            let back = folder + "/back"
            try? FileManager.default.removeItem(atPath: back)  // absent after the previous round: fine
            let download = try await device.run(rclone, ["copyto", remote + path, back] + options, bound: .seconds(90))
            guard download.succeeded else {
                await device.recorder.count("downloads back answered an error")
                continue
            }
            await device.recorder.count("downloads back")
            let data = FileManager.default.contents(atPath: back) ?? Data()
            if TestData.sha256(data) != sha256 {
                await device.recorder.violation(
                    "share \(app): Documents/\(path) came back as \(data.count) bytes differing from the \(size) sent")
            }
        }
    }
}
