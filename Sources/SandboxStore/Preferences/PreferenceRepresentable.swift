import Foundation

/// A type a typed preferences key can hold: it converts to and from a ``PreferenceValue``.
///
/// The property-list types conform, and so do arrays and string-keyed dictionaries of them.
public protocol PreferenceRepresentable: Sendable {
    /// The stored form.
    var preferenceValue: PreferenceValue { get }
    /// The value of a stored form, or `nil` when it holds another type (the key's default is
    /// used then).
    init?(preferenceValue: PreferenceValue)
}

extension String: PreferenceRepresentable {
    /// Stored as a string.
    public var preferenceValue: PreferenceValue { .string(self) }
    /// The stored string; `nil` for any other type.
    public init?(preferenceValue: PreferenceValue) {
        guard case .string(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension Int: PreferenceRepresentable {
    /// Stored as an integer.
    public var preferenceValue: PreferenceValue { .integer(self) }
    /// A stored integer, or a stored real with no fractional part that fits (as
    /// `UserDefaults.integer(forKey:)` reads one); `nil` otherwise.
    public init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .integer(let value): self = value
        case .double(let value) where value.rounded() == value && abs(value) < 0x1p63: self = Int(value)
        default: return nil
        }
    }
}

extension UInt64: PreferenceRepresentable {
    /// Stored as an integer, or as an unsigned one above `Int.max`.
    public var preferenceValue: PreferenceValue { PreferenceValue(self) }
    /// A stored integer that is not negative, or a stored unsigned integer; `nil` otherwise.
    public init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .integer(let value) where value >= 0: self = UInt64(value)
        case .unsignedInteger(let value): self = value
        default: return nil
        }
    }
}

extension Double: PreferenceRepresentable {
    /// Stored as a real.
    public var preferenceValue: PreferenceValue { .double(self) }
    /// A stored integer reads as a double too, as `UserDefaults.double(forKey:)` does.
    public init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .double(let value): self = value
        case .integer(let value): self = Double(value)
        case .unsignedInteger(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Bool: PreferenceRepresentable {
    /// Stored as a Boolean.
    public var preferenceValue: PreferenceValue { .bool(self) }
    /// The stored Boolean; `nil` for any other type (a stored 0 or 1 is not a Boolean).
    public init?(preferenceValue: PreferenceValue) {
        guard case .bool(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension Date: PreferenceRepresentable {
    /// Stored as a date.
    public var preferenceValue: PreferenceValue { .date(self) }
    /// The stored date; `nil` for any other type.
    public init?(preferenceValue: PreferenceValue) {
        guard case .date(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension Data: PreferenceRepresentable {
    /// Stored as data.
    public var preferenceValue: PreferenceValue { .data(self) }
    /// The stored data; `nil` for any other type.
    public init?(preferenceValue: PreferenceValue) {
        guard case .data(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension URL: PreferenceRepresentable {
    /// Stored as its absolute string.
    public var preferenceValue: PreferenceValue { .string(absoluteString) }
    /// The stored string read as a URL; `nil` for any other type or a string that is not a URL.
    public init?(preferenceValue: PreferenceValue) {
        guard case .string(let value) = preferenceValue, let url = URL(string: value) else { return nil }
        self = url
    }
}

extension Array: PreferenceRepresentable where Element: PreferenceRepresentable {
    /// Stored as an array of the elements' stored forms.
    public var preferenceValue: PreferenceValue { .array(map(\.preferenceValue)) }
    /// A stored array whose every element converts; `nil` when one does not, or for another type.
    public init?(preferenceValue: PreferenceValue) {
        guard case .array(let values) = preferenceValue else { return nil }
        var result: [Element] = []
        for value in values {
            guard let element = Element(preferenceValue: value) else { return nil }
            result.append(element)
        }
        self = result
    }
}

extension Dictionary: PreferenceRepresentable where Key == String, Value: PreferenceRepresentable {
    /// Stored as a dictionary of the values' stored forms.
    public var preferenceValue: PreferenceValue { .dictionary(mapValues(\.preferenceValue)) }
    /// A stored dictionary whose every value converts; `nil` when one does not, or for another type.
    public init?(preferenceValue: PreferenceValue) {
        guard case .dictionary(let values) = preferenceValue else { return nil }
        var result: [String: Value] = [:]
        for (key, value) in values {
            guard let converted = Value(preferenceValue: value) else { return nil }
            result[key] = converted
        }
        self = result
    }
}

extension PreferenceValue: PreferenceRepresentable {
    /// Stored as it is.
    public var preferenceValue: PreferenceValue { self }
    /// The stored value as it is; never `nil`.
    public init?(preferenceValue: PreferenceValue) { self = preferenceValue }
}
