import Foundation

/// One table row comparing ours with a peer: each side's times per run, and how to print them.
public struct Comparison {
    /// The operation measured, as the row names it.
    public var name: String
    /// The program or library ours is compared with.
    public var peer: String
    /// Bytes processed per run, to show throughput; `nil` to show times only.
    public var bytes: Int?
    /// Our time of each run, in seconds.
    public var ours: [Double] = []
    /// The peer's time of each run, in seconds.
    public var theirs: [Double] = []

    /// A row with no runs yet (``measure(runs:ours:theirs:)`` adds them).
    public init(name: String, peer: String, bytes: Int? = nil) {
        self.name = name
        self.peer = peer
        self.bytes = bytes
    }

    /// The header of ``line``'s table.
    public static let header = """
        | operation | peer | ours (median) | peer (median) | ratio ours/peer | each run's ratio |
        |---|---|---|---|---|---|
        """

    /// `| name | peer | ours | theirs | ratio | runs |`: medians (with throughput when ``bytes`` is
    /// set), the median of the per-run ratios ours/theirs, and each run's ratio (a goal such as
    /// "≤ 1.0 in five runs of five" is read there).
    public var line: String {
        let ratios = zip(ours, theirs).map { $0 / $1 }
        let each = ratios.map { String(format: "%.2f", $0) }.joined(separator: ", ")
        return
            "| \(name) | \(peer) | \(shown(median(ours))) | \(shown(median(theirs))) | **\(String(format: "%.2f", median(ratios)))** | \(each) |"
    }

    private func shown(_ seconds: Double) -> String {
        guard let bytes else { return String(format: "%.3f s", seconds) }
        return String(format: "%.3f s (%.0f MiB/s)", seconds, Double(bytes) / Double(1 << 20) / seconds)
    }

    /// Runs ours and theirs alternately, each going first every other run (the file system's
    /// state favours one or the other).
    public mutating func measure(runs: Int, ours: () throws -> Void, theirs: () throws -> Double) rethrows {
        for run in 0..<runs {
            if run % 2 == 1 { self.theirs.append(try theirs()) }
            self.ours.append(try time(ours))
            if run % 2 == 0 { self.theirs.append(try theirs()) }
        }
    }
}
