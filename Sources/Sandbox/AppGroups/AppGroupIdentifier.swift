import SandboxCore

/// An App Group's identifier, as iOS requires it: `group.` followed by a reverse-DNS name, such as
/// `group.com.example.shared`.
///
/// Valid identifiers are made of ASCII letters, digits, `-` and `.`, with no empty part and at most
/// ``maximumLength`` characters. That makes them safe as directory names (the group container is
/// `Containers/Shared/AppGroup/<group-id>/`): no `/`, no `..`, nothing hidden, nothing that is not
/// UTF-8.
public struct AppGroupIdentifier: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    /// The identifier as written.
    public let rawValue: String

    /// The prefix iOS requires of every App Group identifier.
    public static let prefix = "group."
    /// The longest identifier accepted (the limit of an app identifier).
    public static let maximumLength = AppIdentifier.maximumLength
    /// The most groups one bundle may belong to.
    public static let maximumCount = 64

    /// Validates `rawValue`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidAppGroupIdentifier``, saying which rule was
    ///   broken.
    public init(_ rawValue: String) throws(SandboxError) {
        func invalid(_ reason: String) -> SandboxError {
            SandboxError(
                .invalidAppGroupIdentifier,
                "'\(rawValue)' is not a valid App Group identifier: \(reason). Use 'group.' followed by a reverse-DNS name, such as 'group.com.example.shared'.",
                path: rawValue)
        }
        guard rawValue.utf8.count <= Self.maximumLength else {
            throw invalid("it is \(rawValue.utf8.count) bytes long, more than \(Self.maximumLength)")
        }
        guard rawValue.hasPrefix(Self.prefix) else { throw invalid("it does not start with '\(Self.prefix)'") }
        let allowed = rawValue.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
        }
        guard allowed else { throw invalid("only ASCII letters, digits, '-' and '.' are allowed") }
        let parts = rawValue.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2, !parts.contains(where: \.isEmpty) else {
            throw invalid("it has an empty part (nothing after 'group.', or a trailing or doubled '.')")
        }
        self.rawValue = rawValue
    }

    /// The identifier as written (``rawValue``).
    public var description: String { rawValue }

    /// Whether `lhs` sorts before `rhs`: by their raw values, which are ASCII, so the order is
    /// that of their bytes.
    public static func < (lhs: AppGroupIdentifier, rhs: AppGroupIdentifier) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Validates a list of groups as a bundle's entitlements hold it: at most ``maximumCount``,
    /// each valid; returned sorted, without repeats.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidAppGroupIdentifier`` for an invalid
    ///   identifier or too many.
    public static func validatedList(_ rawValues: [String]) throws(SandboxError) -> [AppGroupIdentifier] {
        guard rawValues.count <= maximumCount else {
            throw SandboxError(
                .invalidAppGroupIdentifier,
                "\(rawValues.count) App Groups are listed, more than the \(maximumCount) a bundle may belong to. Remove the groups the app does not use."
            )
        }
        var groups = Set<AppGroupIdentifier>()
        for raw in rawValues { groups.insert(try AppGroupIdentifier(raw)) }
        return groups.sorted()
    }

    /// Decodes an identifier from its string, e.g. `"group.com.example.shared"`.
    ///
    /// - Throws: a `DecodingError` when the value is not a string;
    ///   ``SandboxCore/SandboxError/Code/invalidAppGroupIdentifier`` when it is not valid.
    public init(from decoder: any Decoder) throws {
        let raw = try decoder.singleValueContainer().decode(String.self)
        try self.init(raw)
    }

    /// Encodes the identifier as its string, ``rawValue``.
    ///
    /// - Throws: the encoder's `EncodingError`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
