import Foundation
import SandboxCore
import SandboxStore

/// The repository's `config` object: readable without a password, holding no secret.
///
/// Every field is checked whenever it is read (``validate(in:)``); in an encrypted repository of
/// format 2 the fields are authenticated under the master key (``authentication``), so that someone
/// with write access to the storage but not the password cannot change them unnoticed.
public struct RepositoryConfig: Sendable, Hashable, Codable {
    /// The format version this module writes: 4, where blobs are kept in packs
    /// (docs/repository-format.md). A repository of an older version is raised to it by the first
    /// backup into it, before that writes its first pack.
    public static let currentVersion = 4
    /// The format version of a repository holding a snapshot with an App Group's part
    /// (`AppDomainGroup-<id>`): a program reading at most 2 counts only the apps' parts, so its
    /// prune would delete the group's blobs. The config is raised to it before the first such
    /// snapshot is written (by the backup, as it writes the snapshot), and only then.
    public static let partsVersion = 3
    /// The format version of a repository whose blobs are in packs, with binary index records: a
    /// program reading at most 3 would find none of them (and its prune would delete them all).
    public static let packsVersion = 4
    /// The format versions this module reads: 1 (no ``authentication``; an encrypted one is
    /// authenticated by the next backup), 2 (an encrypted one's config authenticated), 3 (group
    /// parts) and 4 (packs).
    public static let readableVersions = 1...4
    /// The largest `config` read: a few hundred bytes in practice.
    static let maximumSize = 4096

    /// The format's version (``currentVersion`` when written; ``readableVersions`` are read).
    public var version: Int
    /// A random id, 64 hex digits.
    public var id: String
    /// How files are cut into chunks: fixed for the repository's life, so chunks deduplicate.
    public var chunking: ChunkingParameters
    /// Whether every object is sealed with AES-GCM under a password's key.
    public var encrypted: Bool
    /// HMAC-SHA256 of the other fields under a key derived from the master key, in hex: present
    /// exactly in encrypted repositories of format 2 or later.
    public var authentication: String?

    /// The bytes ``authentication`` covers: every other field, in a fixed text form (not the JSON,
    /// whose spelling an encoder may change).
    var canonicalBytes: [UInt8] {
        let sizes = "\(chunking.minimumSize) \(chunking.averageSize) \(chunking.maximumSize)"
        return Array(
            "sandbox-backup config\nversion \(version)\nid \(id)\nencrypted \(encrypted)\nchunking \(sizes)\n".utf8)
    }

    /// Checks every field against what backup and restore can use.
    ///
    /// - Parameter location: the repository, for messages.
    /// - Throws: ``SandboxCore/SandboxError/Code/notARepository`` for a newer format version;
    ///   ``SandboxCore/SandboxError/Code/repositoryDamaged`` naming the field, its value and the
    ///   legal range for anything else out of range.
    public func validate(in location: String) throws(SandboxError) {
        try validate(in: location, reading: Self.readableVersions)
    }

    /// ``validate(in:)`` by a program that reads the format versions `readable` (an older one
    /// reads fewer).
    func validate(in location: String, reading readable: ClosedRange<Int>) throws(SandboxError) {
        guard version <= readable.upperBound else {
            throw SandboxError(
                .notARepository,
                "The repository '\(location)' has format version \(version); this program reads versions \(readable.lowerBound)…\(readable.upperBound). Use a newer sandbox.",
                path: location)
        }
        let authenticated = version >= 2 && encrypted
        let problem: String? =
            if !readable.contains(version) {
                "version is \(version), outside the legal \(readable.lowerBound)…\(readable.upperBound)"
            } else if !Hex.isLowercase(id, count: 64) {
                "id is '\(id.prefix(80))', not 64 lowercase hex digits"
            } else if let violation = chunking.violation {
                violation
            } else if authenticated, authentication.map({ Hex.isLowercase($0, count: 64) }) != true {
                "authentication is \(authentication.map { "'\($0.prefix(80))'" } ?? "missing"), where an encrypted repository of version \(version) must have 64 lowercase hex digits"
            } else if !authenticated, authentication != nil {
                "authentication is present, where a\(encrypted ? " version-\(version)" : "n unencrypted") repository has none"
            } else {
                nil
            }
        if let problem { throw Self.unusable(location, problem) }
    }

    /// The error for a config backup or restore cannot use: `problem` names the field.
    static func unusable(_ location: String, _ problem: String) -> SandboxError {
        SandboxError(
            .repositoryDamaged,
            "The repository's 'config' in '\(location)' cannot be used: \(problem). Someone changed it, or it is damaged; nothing was written to the repository. Put back the 'config' from a copy of the repository, or back up to a new one.",
            path: location)
    }
}

/// Encodes and decodes the repository's JSON objects.
enum RepositoryJSON {
    /// An encoder of repository records: keys sorted, dates as ``RepositoryDate`` writes them.
    /// One encoder may encode many values (``TreeJSON`` encodes a tree's nodes with one).
    static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = RepositoryDate.encoding
        return encoder
    }

    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = makeEncoder()
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
    static let encoding = JSONEncoder.DateEncodingStrategy.custom { date, encoder in
        var container = encoder.singleValueContainer()
        try container.encode(UTCTimestamp.iso8601WithMilliseconds(date))
    }

    static let decoding = JSONDecoder.DateDecodingStrategy.custom { decoder in
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let date = UTCTimestamp.parseISO8601(text) else {
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
