import Foundation
import Sandbox

enum Output {
    /// Writes `value` as one line of JSON (sorted keys, ISO 8601 dates) to standard output.
    static func json(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let data = try encoder.encode(value)
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    /// Formats a byte count for people: `1.5 MiB`.
    static func bytes(_ count: Int64) -> String {
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
    static func argument(_ string: String) throws(SandboxError) -> ContainerPath {
        try ContainerPath(string)
    }
}
