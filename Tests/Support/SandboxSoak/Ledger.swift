import Foundation
import SandboxTransferTesting

/// Every file the soak was told is in a container (an upload the share answered 2xx, a download
/// `sandboxd` reported completed) and every restore, with when each began and ended as the soak
/// saw it: from their order, what each file's fate must be at the end.
actor Ledger {
    /// A file written into an app's Documents by a component.
    struct Entry: Sendable {
        enum Source: String, Sendable { case upload, download }
        var source: Source
        var app: String
        /// Relative to Documents.
        var path: String
        var sha256: String
        /// When the client started, and when it was told the file was there.
        var start: ContinuousClock.Instant
        var end: ContinuousClock.Instant
        /// Whether it was told so: a failed upload may be absent, but never partial.
        var acknowledged: Bool
    }

    /// A `sandbox restore` of an app to the snapshot made at the start (which holds no file of the ledger).
    struct Restore: Sendable {
        enum Outcome: Sendable { case completed, failed, killed }
        var app: String
        var start: ContinuousClock.Instant
        var end: ContinuousClock.Instant
        var outcome: Outcome
    }

    /// What must be true of an entry at the end.
    enum Expectation: String, Sendable { case present, absent, either }

    private var entries: [Entry] = []
    private var restores: [Restore] = []

    func record(_ entry: Entry) { entries.append(entry) }
    func record(_ restore: Restore) { restores.append(restore) }

    /// What must be true of an acknowledged file given the restores of its app, in order: a
    /// completed restore that began after the file was acknowledged removed it; one that
    /// overlapped its writing may or may not have; a failed one changed nothing (all or nothing);
    /// one killed midway may or may not have happened.
    static func expectation(of entry: Entry, after restores: [Restore]) -> Expectation {
        guard entry.acknowledged else { return .either }
        var expected = Expectation.present
        for restore in restores.sorted(by: { $0.start < $1.start }) where restore.app == entry.app {
            if entry.start > restore.end { continue }  // written after it
            switch restore.outcome {
            case .failed: continue
            case .completed where entry.end < restore.start: expected = .absent
            case .completed, .killed: if expected == .present { expected = .either }
            }
        }
        return expected
    }

    /// Checks every entry against the apps' Documents on the device; returns the violations and
    /// counts what it found.
    func verify(on device: SoakDevice) async throws -> [String] {
        let entries = entries
        let restores = restores
        let recorder = device.recorder
        let (violations, counts) = try await onOwnThread { () -> ([String], [String: Int]) in
            var violations: [String] = []
            var counts: [String: Int] = [:]
            for entry in entries {
                let expected = Self.expectation(of: entry, after: restores)
                let path = device.documents(entry.app) + "/" + entry.path
                let contents = FileManager.default.contents(atPath: path)
                let state = contents == nil ? "absent" : "present"
                counts["checked \(entry.source.rawValue)s \(expected.rawValue) → \(state)", default: 0] += 1
                let what = "\(entry.source.rawValue) \(entry.app) Documents/\(entry.path)"
                switch (expected, contents) {
                case (.present, nil):
                    violations.append("\(what) was acknowledged and no restore removed it, but it is missing")
                case (.absent, .some):
                    violations.append("\(what) is present although a completed restore began after it was written")
                case (_, .some(let data)) where TestData.sha256(data) != entry.sha256:
                    violations.append("\(what) differs from what was sent (\(data.count) bytes)")
                default: break
                }
            }
            return (violations, counts)
        }
        for (key, value) in counts { await recorder.count(key, by: value) }
        return violations
    }
}
