import Foundation

/// Reads and writes property lists, in memory: `Codable` values, or ``PreferenceValue`` trees
/// that keep every type as the file has it.
///
/// **Reading** is done by this store's own readers (binary and XML): iterative, bounded by ``PropertyListLimits``, checking every
/// integer of the file before using it. Foundation never parses bytes from a file: a `Decodable`
/// value is decoded from the checked value, re-encoded as a binary property list this store made.
///
/// **Writing** binary uses Foundation's `PropertyListEncoder`, which gives the same bytes on every
/// run (`PropertyListSerialization` does not) and writes reals as reals and unsigned integers above
/// 2⁶³ as 128-bit integers, as Apple does. XML is written by this store's own writer (Foundation's
/// shifts dates before 1582 by days).
public enum PropertyList {
    /// Encodes `value` as a property list.
    ///
    /// - Parameters:
    ///   - value: the value to encode; its top level must encode as a dictionary or an array.
    ///   - format: ``PropertyListFormat/binary`` by default.
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/encodingFailed`` when the value has no
    ///   property-list form, e.g. a bare number or string as the top level (wrap it in a struct),
    ///   or, for XML, a string with a control character XML cannot carry.
    public static func encode<Value: Encodable>(
        _ value: Value, format: PropertyListFormat = .binary
    ) throws(SandboxError) -> [UInt8] {
        let binary = try binary(value)
        guard format == .xml else { return binary }
        do {
            return try XMLPropertyListWriter.write(try BinaryPropertyListReader(binary, limits: .unlimitedSize).read())
        } catch let error as PropertyListReadFailure {
            throw SandboxError(
                .encodingFailed, "A \(Value.self) cannot be written as an XML property list: \(error).",
                underlying: .detail(error.description))
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(
                .encodingFailed, "A \(Value.self) cannot be written as an XML property list.",
                underlying: .detail(String(describing: error)))
        }
    }

    /// Writes `value` as a property list (in XML, a bare string or number may be the top level).
    ///
    /// - Throws: as ``encode(_:format:)``.
    public static func encode(
        _ value: PreferenceValue, format: PropertyListFormat = .binary
    ) throws(SandboxError) -> [UInt8] {
        format == .xml ? try XMLPropertyListWriter.write(value) : try binary(value)
    }

    /// Foundation's binary encoding of `value`.
    private static func binary<Value: Encodable>(_ value: Value) throws(SandboxError) -> [UInt8] {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        do {
            return Array(try encoder.encode(value))
        } catch {
            throw SandboxError(
                .encodingFailed,
                "A \(Value.self) cannot be written as a property list: the top level must be a dictionary or an array (wrap bare values in a struct), and every value must be encodable.",
                underlying: .detail(String(describing: error))
            )
        }
    }

    /// The value of a binary or XML property list, whichever `bytes` holds, with every type as the
    /// file has it: the entry point for untrusted bytes.
    ///
    /// - Parameters:
    ///   - bytes: the property list, binary or XML (untrusted: every part is checked).
    ///   - path: names the file in error messages.
    ///   - limits: how much the read may build; ``PropertyListLimits/default`` unless given.
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/corrupt`` when `bytes` is not a property list
    ///   or is truncated or damaged; ``SandboxCore/SandboxError/Code/tooLarge`` when it is past `limits`.
    public static func value(
        from bytes: [UInt8], path: String? = nil, limits: PropertyListLimits = .default
    ) throws(SandboxError) -> PreferenceValue {
        try value(from: bytes, path: path, limits: limits, readingUIDs: false)
    }

    /// As ``value(from:path:limits:)``; with `readingUIDs`, a binary list's UID objects (keyed
    /// archives' references) read as the `{"CF$UID": n}` dictionaries an XML list spells them with.
    static func value(
        from bytes: [UInt8], path: String?, limits: PropertyListLimits, readingUIDs: Bool
    ) throws(SandboxError) -> PreferenceValue {
        do {
            switch PropertyListFormat.detect(bytes) {
            case .binary?: return try BinaryPropertyListReader(bytes, limits: limits, readsUIDs: readingUIDs).read()
            case .xml?: return try XMLPropertyListReader.read(bytes, limits: limits)
            case nil: break
            }
        } catch {
            throw error.storeError(path: path)
        }
        let name = path.map { "'\($0)'" } ?? "The data"
        throw SandboxError(
            .corrupt,
            "\(name) is not a property list: it starts with neither 'bplist00' nor an XML plist header\(bytes.isEmpty ? " (it is empty)" : ""). It was left as it was.",
            path: path)
    }

    /// Decodes a `Value` from a binary or XML property list, whichever `bytes` holds.
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - bytes: the property list, binary or XML (untrusted: every part is checked).
    ///   - path: names the file in error messages.
    ///   - limits: how much the read may build.
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/corrupt`` when `bytes` is not a property list
    ///   or is truncated or damaged; ``SandboxCore/SandboxError/Code/tooLarge`` past `limits`;
    ///   ``SandboxCore/SandboxError/Code/typeMismatch`` when it is a valid property list of another shape than `Value`.
    public static func decode<Value: Decodable>(
        _ type: Value.Type, from bytes: [UInt8], path: String? = nil, limits: PropertyListLimits = .default
    ) throws(SandboxError) -> Value {
        try decode(type, fromValue: try value(from: bytes, path: path, limits: limits), path: path)
    }

    /// Decodes a `Value` from a property-list value already read and checked (`path` names its
    /// file in errors).
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/typeMismatch``
    ///   when the value is not of the shape of `Value`.
    static func decode<Value: Decodable>(
        _ type: Value.Type, fromValue tree: PreferenceValue, path: String?
    ) throws(SandboxError) -> Value {
        let name = path.map { "'\($0)'" } ?? "The data"
        // The checked value, as a binary property list this store made, wrapped in an array so
        // that a bare string or number at the top level decodes too.
        let checked = try encode(PreferenceValue.array([tree]), format: .binary)
        do {
            return try PropertyListDecoder().decode(Wrapped<Value>.self, from: Data(checked)).value
        } catch let error as DecodingError {
            throw SandboxError(
                .typeMismatch,
                "\(name) is a property list, but not of the shape of \(Value.self): \(describe(error)). It was left as it was.",
                path: path, underlying: .detail(String(describing: error)))
        } catch {
            throw SandboxError(
                .typeMismatch, "\(name) could not be decoded as \(Value.self). It was left as it was.", path: path,
                underlying: .detail(String(describing: error)))
        }
    }

    /// The one element of the array `decode` wraps the value in.
    private struct Wrapped<Value: Decodable>: Decodable {
        var value: Value
        init(from decoder: any Decoder) throws {
            var container = try decoder.unkeyedContainer()
            value = try container.decode(Value.self)
        }
    }

    /// "at 'a.b': expected Int" from a decoding error, for people (the wrapping array's index left out).
    private static func describe(_ error: DecodingError) -> String {
        func at(_ path: [any CodingKey]) -> String {
            let path = path.dropFirst()
            return path.isEmpty
                ? "at the top level"
                : "at '" + path.map { $0.intValue.map(String.init) ?? $0.stringValue }.joined(separator: ".") + "'"
        }
        switch error {
        case .typeMismatch(let type, let context): return "\(at(context.codingPath)) a \(type) was expected"
        case .valueNotFound(let type, let context): return "\(at(context.codingPath)) a \(type) is missing"
        case .keyNotFound(let key, let context):
            return "\(at(context.codingPath)) the key '\(key.stringValue)' is missing"
        case .dataCorrupted(let context): return "\(at(context.codingPath)) \(context.debugDescription)"
        @unknown default: return String(describing: error)
        }
    }
}

extension PropertyListLimits {
    /// For re-reading bytes this store's encoder just made from a value in memory: only depth counts.
    static let unlimitedSize = PropertyListLimits(maximumOutputSize: .max)
}
