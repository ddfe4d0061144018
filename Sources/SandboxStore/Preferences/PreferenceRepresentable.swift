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
    public var preferenceValue: PreferenceValue { .string(self) }
    public init?(preferenceValue: PreferenceValue) {
        guard case .string(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension Int: PreferenceRepresentable {
    public var preferenceValue: PreferenceValue { .integer(self) }
    public init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .integer(let value): self = value
        case .double(let value) where value.rounded() == value && abs(value) < 0x1p63: self = Int(value)
        default: return nil
        }
    }
}

extension UInt64: PreferenceRepresentable {
    public var preferenceValue: PreferenceValue { PreferenceValue(self) }
    public init?(preferenceValue: PreferenceValue) {
        switch preferenceValue {
        case .integer(let value) where value >= 0: self = UInt64(value)
        case .unsignedInteger(let value): self = value
        default: return nil
        }
    }
}

extension Double: PreferenceRepresentable {
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
    public var preferenceValue: PreferenceValue { .bool(self) }
    public init?(preferenceValue: PreferenceValue) {
        guard case .bool(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension Date: PreferenceRepresentable {
    public var preferenceValue: PreferenceValue { .date(self) }
    public init?(preferenceValue: PreferenceValue) {
        guard case .date(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension Data: PreferenceRepresentable {
    public var preferenceValue: PreferenceValue { .data(self) }
    public init?(preferenceValue: PreferenceValue) {
        guard case .data(let value) = preferenceValue else { return nil }
        self = value
    }
}

extension URL: PreferenceRepresentable {
    /// Stored as its absolute string.
    public var preferenceValue: PreferenceValue { .string(absoluteString) }
    public init?(preferenceValue: PreferenceValue) {
        guard case .string(let value) = preferenceValue, let url = URL(string: value) else { return nil }
        self = url
    }
}

extension Array: PreferenceRepresentable where Element: PreferenceRepresentable {
    public var preferenceValue: PreferenceValue { .array(map(\.preferenceValue)) }
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
    public var preferenceValue: PreferenceValue { .dictionary(mapValues(\.preferenceValue)) }
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
    public var preferenceValue: PreferenceValue { self }
    public init?(preferenceValue: PreferenceValue) { self = preferenceValue }
}
