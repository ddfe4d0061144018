/// Why a reader refused its bytes, before the file's name is known; ``storeError(path:)`` makes
/// the error a caller sees.
struct PropertyListReadFailure: Error, CustomStringConvertible {
    enum Kind: Sendable {
        /// Not a well-formed property list.
        case malformed
        /// Well formed as far as read, but past ``PropertyListLimits``.
        case tooLarge
    }

    var kind: Kind
    var detail: String
    /// Where in the input, when the reader knows.
    var offset: Int?

    var description: String {
        offset.map { "\(detail), at byte \($0)" } ?? detail
    }

    static func malformed(_ description: String) -> PropertyListReadFailure {
        PropertyListReadFailure(kind: .malformed, detail: description)
    }

    static func tooLarge(_ description: String) -> PropertyListReadFailure {
        PropertyListReadFailure(kind: .tooLarge, detail: description)
    }

    /// The error for the file at `path` (or unnamed data).
    func storeError(path: String?) -> SandboxError {
        let name = path.map { "'\($0)'" } ?? "The data"
        switch kind {
        case .malformed:
            return SandboxError(
                .corrupt,
                "\(name) is a damaged or truncated property list. It was left as it was; restore it from a backup or remove it.",
                path: path,
                underlying: .detail(description)
            )
        case .tooLarge:
            return SandboxError(
                .tooLarge,
                "\(name) describes a property list beyond the reading limits. It was left as it was; if the file is genuine, read it with larger PropertyListLimits.",
                path: path,
                underlying: .detail(description)
            )
        }
    }
}

/// What a reader has produced so far, charged against its ``PropertyListLimits``.
struct PropertyListBudget {
    let limits: PropertyListLimits
    private(set) var produced = 0

    init(_ limits: PropertyListLimits) {
        self.limits = limits
    }

    /// Counts one value holding `payload` bytes.
    mutating func charge(_ payload: Int) throws(PropertyListReadFailure) {
        produced += 16 + payload  // payload is at most a few times the input: no overflow
        guard produced <= limits.maximumOutputSize else {
            throw .tooLarge(
                "it expands to more than \(limits.maximumOutputSize) bytes of values (shared objects count each time they are referenced)"
            )
        }
    }

    /// Refuses a container opened at `depth` (the top level is 1).
    func enter(depth: Int) throws(PropertyListReadFailure) {
        guard depth <= limits.maximumDepth else {
            throw .tooLarge("arrays and dictionaries nest more than \(limits.maximumDepth) levels deep")
        }
    }
}
