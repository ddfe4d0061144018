// The tables: each size's rows as it ends, and at the end the curve, one line per size with the
// goals' ratios (time ≤ 1.0× restic, objects ≤ 1.2×, bytes ≤ 1.05×, peak RSS ≤ restic's).
import BenchmarkSupport
import Foundation

extension SizeResult {
    /// This size's rows, repository and peak RSS, as Markdown.
    var tables: String {
        var lines = [Comparison.header] + rows.map(\.line)
        lines.append("\n| after the first backup | ours | restic | ratio |\n|---|---|---|---|")
        lines.append(
            "| objects (files in the repository) | \(objects.ours.count) | \(objects.theirs.count) | \(ratio(objects.ours.count, objects.theirs.count)) |"
        )
        lines.append(
            "| bytes | \(mebibytes(objects.ours.bytes)) | \(mebibytes(objects.theirs.bytes)) | \(ratio(Int(objects.ours.bytes), Int(objects.theirs.bytes))) |"
        )
        lines.append("\n| peak RSS | ours | restic | ratio |\n|---|---|---|---|")
        for (name, peak) in peaks.sorted(by: { $0.key < $1.key }) {
            lines.append(
                "| \(name) | \(peak.ours / 1024) MiB | \(peak.theirs / 1024) MiB | \(ratio(peak.ours, peak.theirs)) |")
        }
        lines.append(
            String(
                format: "\nContainer made in %.1f s; load %@ before, %@ after.", setupSeconds, load.before, load.after))
        return lines.joined(separator: "\n")
    }

    static let curveHeader = """
        | container | first backup ours / restic (ratio) | incremental ours / restic (ratio) | peak RSS first, ours / restic | peak RSS incremental | objects ours / restic (ratio) | bytes ours / restic (ratio) | load |
        |---|---|---|---|---|---|---|---|
        """

    /// One line of the curve.
    var curveLine: String {
        let container = bigMiB > 0 ? "\(bigMiB) MiB + \(files) files" : "\(files) files"
        let times = rows.prefix(2).map {
            String(
                format: "%.2f / %.2f s (**%.2f**)", median($0.ours), median($0.theirs),
                median(zip($0.ours, $0.theirs).map { $0 / $1 }))
        }
        let first = peaks["first backup", default: (0, 0)]
        let incremental = peaks["incremental", default: (0, 0)]
        return
            "| \(container) | \(times.first ?? "") | \(times.last ?? "") | \(first.ours / 1024) / \(first.theirs / 1024) MiB | \(incremental.ours / 1024) / \(incremental.theirs / 1024) MiB | \(objects.ours.count) / \(objects.theirs.count) (**\(ratio(objects.ours.count, objects.theirs.count))**) | \(mebibytes(objects.ours.bytes)) / \(mebibytes(objects.theirs.bytes)) (**\(ratio(Int(objects.ours.bytes), Int(objects.theirs.bytes)))**) | \(load.before) → \(load.after) |"
    }

    private func ratio(_ ours: Int, _ theirs: Int) -> String {
        theirs == 0 ? "–" : String(format: "%.2f", Double(ours) / Double(theirs))
    }

    private func mebibytes(_ bytes: Int64) -> String { String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) }
}
