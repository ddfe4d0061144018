import Sandbox

/// The `Depth` header of PROPFIND, COPY, MOVE, DELETE and LOCK (RFC 4918 §10.2).
package enum Depth: Sendable, Hashable, CustomStringConvertible {
    /// The item only.
    case zero
    /// The item and its direct members.
    case one
    /// The item and everything beneath it.
    case infinity

    /// Parses the header's value: `0`, `1` or `infinity` (case-insensitive), surrounding spaces
    /// ignored; a missing header is `default`, which RFC 4918 makes `infinity` for most methods.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` for any other value.
    package static func parse(_ value: String?, default: Depth) throws(SandboxError) -> Depth {
        guard let value else { return `default` }
        switch value.trimmingSpaces.lowercased() {
        case "0": return .zero
        case "1": return .one
        case "infinity": return .infinity
        default:
            throw SandboxError(
                .malformedRequest, "The Depth header '\(value.prefix(64))' is not 0, 1 or infinity; send one of those.")
        }
    }

    /// The header's spelling: `0`, `1` or `infinity`.
    package var description: String {
        switch self {
        case .zero: "0"
        case .one: "1"
        case .infinity: "infinity"
        }
    }
}

extension String {
    /// The string without leading and trailing spaces and tabs (HTTP's optional white space).
    package var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return self[start...end]
    }
}
