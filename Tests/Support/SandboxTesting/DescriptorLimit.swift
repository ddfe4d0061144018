import Foundation

/// A process's limit on open descriptors (`RLIMIT_NOFILE`), soft and hard.
public struct DescriptorLimit: Sendable, Equatable {
    /// The limit in force.
    public var soft: Int
    /// How far the process may raise ``soft``.
    public var hard: Int

    /// A limit of `soft` raisable to `hard`.
    public init(soft: Int, hard: Int) {
        self.soft = soft
        self.hard = hard
    }

    /// Process `pid`'s limit, from `Max open files` in `/proc/PID/limits`.
    ///
    /// - Throws: ``TestFailure`` when it cannot be read (the process has ended).
    public static func of(_ pid: pid_t) throws -> DescriptorLimit {
        let path = "/proc/\(pid)/limits"
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""  // read below: the line is missing
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else {
            throw TestFailure("no open-files limit in \(path) (has the process ended?): \(text)")
        }
        let values = line.dropFirst("Max open files".count).split(separator: " ").prefix(2).map { Int($0) }
        guard values.count == 2, let soft = values[0], let hard = values[1] else {
            throw TestFailure("unexpected limit line in \(path): \(line)")
        }
        return DescriptorLimit(soft: soft, hard: hard)
    }
}
