import SandboxCore

/// A bundle's version, as `CFBundleVersion` spells it: one to three non-negative integers
/// separated by dots (`7`, `1.2`, `1.2.10`).
///
/// Versions compare numerically, component by component, a missing component counting as 0:
/// `1.2.9` < `1.2.10`, and `1.2` == `1.2.0`. An update may not install a lower version than the
/// installed one (``SandboxHome/update(_:bundleDirectory:allowingNewSigner:)``).
public struct BundleVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The version as written.
    public let rawValue: String
    /// The integers, without trailing zeros (so that equal versions have equal numbers).
    private let numbers: [UInt64]

    /// Most digits a component may have (so that it fits in 64 bits).
    static let maximumDigits = 18

    /// Validates `rawValue`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` naming the rule broken.
    public init(_ rawValue: String) throws(SandboxError) {
        let parts = rawValue.split(separator: ".", omittingEmptySubsequences: false)
        var numbers: [UInt64] = []
        for part in parts {
            guard !part.isEmpty, part.utf8.count <= Self.maximumDigits,
                part.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
                let number = UInt64(part)
            else {
                throw SandboxError(
                    .invalidArgument,
                    "'\(rawValue)' is not a bundle version: use one to three integers separated by dots, as CFBundleVersion does (e.g. '1.2.10'), each of at most \(Self.maximumDigits) digits.",
                    path: rawValue)
            }
            numbers.append(number)
        }
        guard (1...3).contains(parts.count) else {
            throw SandboxError(
                .invalidArgument,
                "'\(rawValue)' is not a bundle version: it has \(parts.count) parts; CFBundleVersion has one to three integers separated by dots (e.g. '1.2.10').",
                path: rawValue)
        }
        while numbers.last == 0 { numbers.removeLast() }
        self.rawValue = rawValue
        self.numbers = numbers
    }

    /// The version as written (``rawValue``).
    public var description: String { rawValue }

    /// Whether the versions are numerically equal, a missing component counting as 0: `1.2` ==
    /// `1.2.0`, though their ``rawValue``s differ.
    public static func == (lhs: BundleVersion, rhs: BundleVersion) -> Bool { lhs.numbers == rhs.numbers }

    /// Hashes the numeric value, so that versions that are equal (``==(_:_:)``) hash alike.
    public func hash(into hasher: inout Hasher) { hasher.combine(numbers) }

    /// Whether `lhs` is a lower version than `rhs`, comparing component by component as numbers:
    /// `1.2.9` < `1.2.10`.
    public static func < (lhs: BundleVersion, rhs: BundleVersion) -> Bool {
        for index in 0..<max(lhs.numbers.count, rhs.numbers.count) {
            let left = index < lhs.numbers.count ? lhs.numbers[index] : 0
            let right = index < rhs.numbers.count ? rhs.numbers[index] : 0
            if left != right { return left < right }
        }
        return false
    }
}

extension BundleVersion: Codable {
    /// Decodes a version from its string, e.g. `"1.2.10"`.
    ///
    /// - Throws: a `DecodingError` when the value is not a string;
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` when it is not a valid version.
    public init(from decoder: any Decoder) throws {
        try self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Encodes the version as its string, ``rawValue``.
    ///
    /// - Throws: the encoder's `EncodingError`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }
}
