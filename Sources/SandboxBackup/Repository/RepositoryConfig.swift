import Foundation
import SandboxStore

/// The repository's `config` object: readable without a password, holding no secret.
public struct RepositoryConfig: Sendable, Hashable, Codable {
    /// The format version this module writes and reads.
    public static let currentVersion = 1

    public var version: Int
    /// A random id, 64 hex digits.
    public var id: String
    /// How files are cut into chunks: fixed for the repository's life, so chunks deduplicate.
    public var chunking: ChunkingParameters
    /// Whether every object is sealed with AES-GCM under a password's key.
    public var encrypted: Bool
}

/// A `keys/<id>` object: the master key sealed under the key a password derives.
struct KeyFile: Codable {
    var derivation: PasswordKeyDerivation
    /// AES-GCM (`nonce ‖ ciphertext ‖ tag`) of the 64-byte master key.
    var sealedMasterKey: Data
}

/// Encodes and decodes the repository's JSON objects.
enum RepositoryJSON {
    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = RepositoryDate.encoding
        do {
            return Array(try encoder.encode(value))
        } catch {
            // Our own Codable types with no throwing members cannot fail to encode.
            preconditionFailure("encoding a repository record failed: \(error)")
        }
    }

    static func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8], name: String) throws(SandboxErrorBox) -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = RepositoryDate.decoding
        do {
            return try decoder.decode(type, from: Data(bytes))
        } catch {
            throw SandboxErrorBox(name: name, detail: String(describing: error))
        }
    }
}

/// Dates in repository records: ISO 8601 with fractional seconds. Whole seconds (`.iso8601`) made
/// two snapshots taken within one second tie, so "the latest" — and what `prune --keep-last`
/// keeps — was decided by their random ids.
enum RepositoryDate {
    static func formatter() -> ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }

    static let encoding = JSONEncoder.DateEncodingStrategy.custom { date, encoder in
        var container = encoder.singleValueContainer()
        try container.encode(formatter().string(from: date))
    }

    static let decoding = JSONDecoder.DateDecodingStrategy.custom { decoder in
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = formatter().date(from: text) ?? ISO8601DateFormatter().date(from: text) else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "'\(text)' is not an ISO 8601 date"))
        }
        return date
    }
}

/// A decoding failure, turned into a ``SandboxCore/SandboxError`` by the caller that knows the context.
struct SandboxErrorBox: Error {
    var name: String
    var detail: String
}
