import Foundation
import SandboxCore

/// One value of a property list — a preferences file, as `NSUserDefaults` stores it, or any other:
/// the property-list types, each kept as the file has it (a real stays a real, `-0.0` keeps its
/// sign, an unsigned 64-bit integer is exact).
public enum PreferenceValue: Sendable, Hashable {
    case string(String)
    /// An integer from −2⁶³ to 2⁶³−1.
    case integer(Int)
    /// An integer from 2⁶³ to 2⁶⁴−1 (written by Apple's and Python's writers as a 128-bit integer).
    /// Readers use it only above `Int.max`; ``init(_:)`` picks the case for a `UInt64`.
    case unsignedInteger(UInt64)
    case double(Double)
    case bool(Bool)
    /// Kept to the precision of a `Double` (sub-second), unlike Foundation's `UserDefaults` on Linux.
    case date(Date)
    case data(Data)
    case array([PreferenceValue])
    case dictionary([String: PreferenceValue])

    /// An unsigned integer: ``integer(_:)`` when it fits an `Int`, else ``unsignedInteger(_:)``.
    public init(_ value: UInt64) {
        self = value <= UInt64(Int.max) ? .integer(Int(value)) : .unsignedInteger(value)
    }

    /// The type's name as `defaults write --type` spells it.
    public var typeName: String {
        switch self {
        case .string: "string"
        case .integer, .unsignedInteger: "int"
        case .double: "double"
        case .bool: "bool"
        case .date: "date"
        case .data: "data"
        case .array: "array"
        case .dictionary: "dictionary"
        }
    }
}

extension PreferenceValue: Encodable {
    /// Encodes as the native property-list type, so files read like any other preferences file.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .unsignedInteger(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .bool(let value): try container.encode(value)
        case .date(let value): try container.encode(value)
        case .data(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .dictionary(let value): try container.encode(value)
        }
    }
}

extension PreferenceValue: Decodable {
    /// Decodes from any decoder. A `Decoder` cannot tell `<real>2</real>` from
    /// `<integer>2</integer>`, so a whole real read this way becomes ``integer(_:)``; read files
    /// with ``PropertyList/value(from:path:limits:)``, which keeps the two apart.
    public init(from decoder: any Decoder) throws {
        if let keyed = try? decoder.container(keyedBy: AnyKey.self) {  // probing the shape, not hiding an error
            var dictionary: [String: PreferenceValue] = [:]
            for key in keyed.allKeys {
                dictionary[key.stringValue] = try keyed.decode(PreferenceValue.self, forKey: key)
            }
            self = .dictionary(dictionary)
            return
        }
        if var unkeyed = try? decoder.unkeyedContainer() {  // probing the shape
            var array: [PreferenceValue] = []
            while !unkeyed.isAtEnd { array.append(try unkeyed.decode(PreferenceValue.self)) }
            self = .array(array)
            return
        }
        let single = try decoder.singleValueContainer()
        // Each probe fails with a type mismatch for the wrong type; the order puts the strict ones first.
        if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int.self) {
            self = .integer(value)
        } else if let value = try? single.decode(UInt64.self) {
            self = .unsignedInteger(value)
        } else if let value = try? single.decode(Double.self) {
            self = .double(value)
        } else if let value = try? single.decode(Date.self) {
            self = .date(value)
        } else if let value = try? single.decode(Data.self) {
            self = .data(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension PreferenceValue: CustomStringConvertible {
    /// As `defaults read` prints a value: strings bare, dates in ISO 8601 with milliseconds (on
    /// the proleptic Gregorian calendar), data in hex between angle brackets.
    public var description: String {
        switch self {
        case .string(let value): value
        case .integer(let value): String(value)
        case .unsignedInteger(let value): String(value)
        case .double(let value): String(value)
        case .bool(let value): value ? "1" : "0"
        case .date(let value): Self.iso8601(value)
        case .data(let value): "<" + Hex.string(value) + ">"
        case .array(let values): "(" + values.map(\.description).joined(separator: ", ") + ")"
        case .dictionary(let values):
            "{" + values.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value);" }.joined(separator: " ") + "}"
        }
    }

    /// ISO 8601 with milliseconds, `2026-11-21T09:30:00.250Z`, on the proleptic Gregorian calendar
    /// (Foundation's ISO 8601 formatter shifts dates before 1582 by days).
    static func iso8601(_ date: Date) -> String {
        PropertyListDate.format(date.timeIntervalSinceReferenceDate, fractionalDigits: 3)
            ?? String(date.timeIntervalSinceReferenceDate)
    }

    /// The date of an ISO 8601 text in UTC, `2026-11-21T09:30:00Z` with an optional fraction of a
    /// second, on the proleptic Gregorian calendar, as property lists and ``description`` spell it;
    /// `nil` for any other text.
    public static func date(iso8601 text: String) -> Date? {
        PropertyListDate.parse(text).map(Date.init(timeIntervalSinceReferenceDate:))
    }
}
