import SandboxCore

/// An app's identifier, reverse-DNS like iOS bundle identifiers: `com.example.notes`.
///
/// Valid identifiers have at least two dot-separated parts, each made of ASCII letters, digits and
/// `-`, and at most ``maximumLength`` characters in all. That also makes them safe as directory
/// names: no `/`, no `..`, no spaces, nothing hidden.
public struct AppIdentifier: Hashable, Sendable, Comparable, CustomStringConvertible, Codable {
    /// The identifier as written.
    public let rawValue: String

    /// Apple's limit for `CFBundleIdentifier`.
    public static let maximumLength = 155

    /// Validates `rawValue`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with
    ///   ``SandboxCore/SandboxError/Code/invalidAppIdentifier``, saying which rule was broken.
    public init(_ rawValue: String) throws(SandboxError) {
        func invalid(_ reason: String) -> SandboxError {
            SandboxError(
                .invalidAppIdentifier,
                "'\(rawValue)' is not a valid app identifier: \(reason). Use reverse-DNS such as 'com.example.notes'.",
                path: rawValue)
        }
        guard !rawValue.isEmpty else { throw invalid("it is empty") }
        guard rawValue.utf8.count <= Self.maximumLength else {
            throw invalid("it is \(rawValue.utf8.count) characters long, more than \(Self.maximumLength)")
        }
        let allowed = rawValue.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
                || byte == UInt8(ascii: ".")
        }
        guard allowed else { throw invalid("only ASCII letters, digits, '-' and '.' are allowed") }
        let parts = rawValue.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2 else { throw invalid("it needs at least two parts separated by '.'") }
        guard !parts.contains(where: \.isEmpty) else {
            throw invalid("it has an empty part (a leading, trailing or doubled '.')")
        }
        self.rawValue = rawValue
    }

    /// The last part, which names the bundle by default (`notes` for `com.example.notes`).
    public var lastPart: String { rawValue.split(separator: ".").last.map(String.init) ?? rawValue }

    /// The identifier as written (``rawValue``).
    public var description: String { rawValue }

    /// Whether `lhs` sorts before `rhs`: by their raw values, which are ASCII, so the order is
    /// that of their bytes.
    public static func < (lhs: AppIdentifier, rhs: AppIdentifier) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Decodes an identifier from its string, e.g. `"com.example.notes"`.
    ///
    /// - Throws: a `DecodingError` when the value is not a string;
    ///   ``SandboxCore/SandboxError/Code/invalidAppIdentifier`` when it is not a valid identifier.
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
