import Foundation
import Sandbox

/// What commands print on standard output, through ``StandardStreams`` (a failed write is an
/// error, never a trap).
package enum Output {
    /// Writes `value` as one line of JSON (sorted keys, ISO 8601 dates) to standard output.
    ///
    /// - Throws: `EncodingError` for a value JSON cannot hold; the write's error as ``line(_:)``.
    package static func json(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        try StandardStreams.output(encoder.encode(value) + [UInt8(ascii: "\n")])
    }

    /// Writes `value` (its description) and a newline to standard output, as `print` would.
    ///
    /// - Throws: the core's error for `write` on standard output (see ``StandardStreams/output(_:)``).
    package static func line(_ value: some CustomStringConvertible) throws(SandboxError) {
        try StandardStreams.output(value.description.utf8 + [UInt8(ascii: "\n")])
    }

    /// Formats a byte count for people: `1.5 MiB`.
    package static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return unit == 0 ? "\(count) B" : "\(String(format: "%.1f", value)) \(units[unit])"
    }
}

extension ContainerPath {
    /// Parses a command-line PATH, relative to the container's home.
    package static func argument(_ string: String) throws(SandboxError) -> ContainerPath {
        try ContainerPath(string)
    }
}
