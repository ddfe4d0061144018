import Foundation

/// A value read from, or to be written to, a ``KeyedArchive``: Foundation's archivable classes
/// as Swift values, and any other class as its name and fields.
///
/// `NSNumber` is ``integer(_:)``, ``unsignedInteger(_:)``, ``double(_:)`` or ``bool(_:)``
/// (a boolean is archived as a property-list boolean, so it stays one); `NSNull` and a `nil`
/// reference are both ``null``.
public indirect enum ArchivedValue: Sendable, Hashable {
    case null
    case string(String)
    case integer(Int)
    /// An integer from 2⁶³ to 2⁶⁴−1.
    case unsignedInteger(UInt64)
    case double(Double)
    case bool(Bool)
    case data(Data)
    /// `NSDate` (`NS.time`, seconds since 2001-01-01 UTC).
    case date(Date)
    /// `NSArray`, `NSMutableArray`.
    case array([ArchivedValue])
    /// `NSSet`, `NSMutableSet`, in the archive's order.
    case set([ArchivedValue])
    /// `NSDictionary`, `NSMutableDictionary`: keys are usually strings, but any value may be one.
    case dictionary([ArchivedValue: ArchivedValue])
    /// `NSUUID` (`NS.uuidbytes`).
    case uuid(UUID)
    /// `NSURL` (`NS.base`, `NS.relative`).
    case url(URL)
    /// An object of any other class, with its fields by key.
    case object(KeyedArchive.ArchivedClass, fields: [String: ArchivedValue])
}

extension ArchivedValue {
    /// The value as a property list, for `Decodable` types: ``null`` is the string `$null`
    /// (Foundation's property-list coders' `nil`), an `NSUUID` its string, an `NSURL` `URL`'s
    /// `Codable` form (`relative`, `base`), a set an array, an object the dictionary of its fields; dictionary keys
    /// that are integers become their decimal text (how `[Int: V]` is keyed).
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/typeMismatch``
    ///   for a dictionary key that is neither a string nor an integer.
    func propertyListValue(path: String?) throws(SandboxError) -> PreferenceValue {
        switch self {
        case .null: return .string(Self.nullText)
        case .string(let value): return .string(value)
        case .integer(let value): return .integer(value)
        case .unsignedInteger(let value): return .unsignedInteger(value)
        case .double(let value): return .double(value)
        case .bool(let value): return .bool(value)
        case .data(let value): return .data(value)
        case .date(let value): return .date(value)
        case .uuid(let value): return .string(value.uuidString)
        case .url(let value): return Self.codableForm(of: value)
        case .array(let values), .set(let values):
            var converted: [PreferenceValue] = []
            for value in values { converted.append(try value.propertyListValue(path: path)) }
            return .array(converted)
        case .object(_, let fields):
            var converted: [String: PreferenceValue] = [:]
            for (key, value) in fields { converted[key] = try value.propertyListValue(path: path) }
            return .dictionary(converted)
        case .dictionary(let entries):
            var converted: [String: PreferenceValue] = [:]
            for (key, value) in entries {
                let text: String
                switch key {
                case .string(let string): text = string
                case .integer(let integer): text = String(integer)
                default:
                    throw SandboxError(
                        .typeMismatch,
                        "\(path.map { "'\($0)'" } ?? "The archive") holds a dictionary keyed by a \(key.kindName), which no Decodable type reads (only string and integer keys). It was left as it was.",
                        path: path)
                }
                converted[text] = try value.propertyListValue(path: path)
            }
            return .dictionary(converted)
        }
    }

    /// `URL`'s own `Codable` form: its relative string and its base, itself a URL.
    private static func codableForm(of url: URL) -> PreferenceValue {
        var form: [String: PreferenceValue] = ["relative": .string(url.relativeString)]
        if let base = url.baseURL { form["base"] = codableForm(of: base) }
        return .dictionary(form)
    }

    /// The value of a property list made by Foundation's `PropertyListEncoder`: the string
    /// `$null` (its `nil`) becomes ``null``.
    init(propertyList value: PreferenceValue) {
        switch value {
        case .string(let string): self = string == Self.nullText ? .null : .string(string)
        case .integer(let integer): self = .integer(integer)
        case .unsignedInteger(let integer): self = .unsignedInteger(integer)
        case .double(let double): self = .double(double)
        case .bool(let bool): self = .bool(bool)
        case .date(let date): self = .date(date)
        case .data(let data): self = .data(data)
        case .array(let values): self = .array(values.map(ArchivedValue.init(propertyList:)))
        case .dictionary(let entries):
            var converted: [ArchivedValue: ArchivedValue] = [:]
            for (key, entry) in entries { converted[.string(key)] = ArchivedValue(propertyList: entry) }
            self = .dictionary(converted)
        }
    }

    /// Foundation's property-list coders' spelling of `nil`.
    static let nullText = "$null"

    /// What kind of value this is, for messages.
    var kindName: String {
        switch self {
        case .null: "null"
        case .string: "string"
        case .integer, .unsignedInteger, .double, .bool: "number"
        case .data: "data"
        case .date: "date"
        case .array: "array"
        case .set: "set"
        case .dictionary: "dictionary"
        case .uuid: "UUID"
        case .url: "URL"
        case .object(let description, _): description.name
        }
    }
}
