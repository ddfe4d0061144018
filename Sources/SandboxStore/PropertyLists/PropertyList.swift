import Foundation

/// Encodes and decodes `Codable` values as property lists, in memory.
///
/// Built on Foundation's `PropertyListEncoder` and `PropertyListDecoder`, which round-trip exactly
/// and, for the binary format, give the same bytes on every run. (`PropertyListSerialization` does
/// not: its binary output changes from run to run, so it is never used for writing.)
public enum PropertyList {
    /// Encodes `value` as a property list.
    ///
    /// - Parameter format: ``PropertyListFormat/binary`` by default.
    /// - Throws: ``StoreError`` with ``StoreError/Code/encodingFailed`` when the value has no
    ///   property-list form, e.g. a bare number or string as the top level (wrap it in a struct).
    public static func encode<Value: Encodable>(_ value: Value, format: PropertyListFormat = .binary) throws(StoreError) -> [UInt8] {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = format == .binary ? .binary : .xml
        do {
            return Array(try encoder.encode(value))
        } catch {
            throw StoreError(
                .encodingFailed,
                "A \(Value.self) cannot be written as a property list: the top level must be a dictionary or an array (wrap bare values in a struct), and every value must be encodable.",
                cause: .encoding(String(describing: error))
            )
        }
    }

    /// Decodes a `Value` from a binary or XML property list, whichever `bytes` holds.
    ///
    /// - Parameter path: names the file in error messages.
    /// - Throws: ``StoreError`` with ``StoreError/Code/corrupt`` when `bytes` is not a property list
    ///   or is truncated or damaged; ``StoreError/Code/typeMismatch`` when it is a valid property
    ///   list of another shape than `Value`.
    public static func decode<Value: Decodable>(_ type: Value.Type, from bytes: [UInt8], path: String? = nil) throws(StoreError) -> Value {
        let name = path.map { "'\($0)'" } ?? "The data"
        guard PropertyListFormat.detect(bytes) != nil else {
            throw StoreError(.corrupt, "\(name) is not a property list: it starts with neither 'bplist00' nor an XML plist header\(bytes.isEmpty ? " (it is empty)" : ""). It was left as it was.", path: path)
        }
        do {
            return try PropertyListDecoder().decode(Value.self, from: Data(bytes))
        } catch let error as DecodingError {
            switch error {
            case .dataCorrupted(let context) where context.codingPath.isEmpty:
                throw StoreError(.corrupt, "\(name) is a damaged or truncated property list. It was left as it was; restore it from a backup or remove it.", path: path, cause: .decoding(context.debugDescription))
            default:
                throw StoreError(.typeMismatch, "\(name) is a property list, but not of the shape of \(Value.self): \(describe(error)). It was left as it was.", path: path, cause: .decoding(String(describing: error)))
            }
        } catch {
            throw StoreError(.corrupt, "\(name) could not be read as a property list. It was left as it was.", path: path, cause: .decoding(String(describing: error)))
        }
    }

    /// "at 'a.b': expected Int" from a decoding error, for people.
    private static func describe(_ error: DecodingError) -> String {
        func at(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "at the top level" : "at '" + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") + "'"
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(at(context.codingPath)) a \(type) was expected"
        case .valueNotFound(let type, let context): return "\(at(context.codingPath)) a \(type) is missing"
        case .keyNotFound(let key, let context): return "\(at(context.codingPath)) the key '\(key.stringValue)' is missing"
        case .dataCorrupted(let context): return "\(at(context.codingPath)) \(context.debugDescription)"
        @unknown default: return String(describing: error)
        }
    }
}
