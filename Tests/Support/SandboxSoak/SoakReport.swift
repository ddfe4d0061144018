import Foundation

/// What a soak run did and found.
public struct SoakReport: Sendable {
    /// The run's seed.
    public var seed: UInt64
    /// The apps it ran.
    public var apps: Int
    /// The wall time of the whole run (set-up and checks included).
    public var wallTime: Duration
    /// Operations, faults and outcomes, counted by name ("restore completed", "SIGKILL share").
    public var counts: [String: Int]
    /// Every broken promise: an acknowledged upload missing or changed, a crash, a hang, …
    public var violations: [String]
    /// The highest VmHWM seen per kind of long-lived process, in bytes.
    public var memoryPeaks: [String: Int]

    /// The report as the benchmark prints it and the test logs it.
    public var summary: String {
        let minutes = Double(wallTime.components.seconds) / 60
        var lines = [
            "soak: seed \(seed), \(apps) apps, \(String(format: "%.1f", minutes)) minutes wall time",
            "operations and faults:",
        ]
        for (key, value) in counts.sorted(by: { $0.key < $1.key }) { lines.append("  \(key): \(value)") }
        lines.append("memory peaks (VmHWM):")
        for (kind, bytes) in memoryPeaks.sorted(by: { $0.key < $1.key }) {
            lines.append("  \(kind): \(String(format: "%.1f", Double(bytes) / 1_048_576)) MiB")
        }
        lines.append("invariant violations: \(violations.count)")
        lines += violations.map { "  \($0)" }
        return lines.joined(separator: "\n")
    }
}
