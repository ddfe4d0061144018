/// Versioned archives of a root value: the role of `NSKeyedArchiver`, with an explicit version.
///
/// An archive is a property list (binary by default) holding the archiver's name, the version of
/// the root's shape, and the root:
///
///     { "$archiver": "SandboxStore.Archiver", "$version": 3, "$root": { … } }
///
/// Reading an archive of the current version decodes the root directly. An older one goes through
/// the migration hook, which decodes the old shape with ``ArchivedRoot/decodeRoot(as:)`` and builds
/// the current one. A newer one fails with ``SandboxCore/SandboxError/Code/newerVersion``: this code cannot know
/// what a later version meant, and the file is left as it was.
///
/// Unlike `NSKeyedUnarchiver` on Linux, which traps on cyclic graphs and disallowed classes, a
/// damaged archive here is a thrown error, never a crash: roots are `Codable` values, not object
/// graphs.
///
///     let archiver = Archiver<Notes>(version: 2) { archived in
///         let old = try archived.decodeRoot(as: NotesV1.self)
///         return Notes(migrating: old)
///     }
///     let bytes = try archiver.archive(notes)
///     let again = try archiver.unarchive(bytes)
public struct Archiver<Root: Codable>: Sendable {
    /// Builds today's root from an archive of an older version.
    public typealias Migration = @Sendable (ArchivedRoot) throws -> Root

    /// The version archives are written with, and the newest one this code reads. At least 1.
    public let version: Int
    /// The format archives are written in; reading accepts both.
    public let format: PropertyListFormat
    let migration: Migration?

    /// An archiver for roots of shape `version`.
    ///
    /// - Parameters:
    ///   - version: the current version of `Root`'s shape; raise it whenever the shape changes, and
    ///     teach `migration` the old one. Values below 1 are raised to 1.
    ///   - format: the property-list format archives are written in, ``PropertyListFormat/binary``
    ///     by default; both formats are read.
    ///   - migration: called for archives older than `version`; without it they cannot be read.
    public init(version: Int, format: PropertyListFormat = .binary, migration: Migration? = nil) {
        self.version = max(1, version)
        self.format = format
        self.migration = migration
    }

    /// The archive of `root`, at the current version.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/encodingFailed``.
    public func archive(_ root: Root) throws(SandboxError) -> [UInt8] {
        try PropertyList.encode(
            ArchiveEnvelope(archiver: ArchiveEnvelope<Root>.name, version: version, root: root), format: format)
    }

    /// The root of an archive, migrated to the current version if it is older.
    ///
    /// - Parameters:
    ///   - bytes: the archive, as ``archive(_:)`` made it (untrusted: every part is checked).
    ///   - path: names the file in error messages.
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/corrupt`` (not an archive, or damaged),
    ///   ``SandboxCore/SandboxError/Code/newerVersion``, ``SandboxCore/SandboxError/Code/migrationFailed`` (an older archive and
    ///   no hook, or the hook threw), ``SandboxCore/SandboxError/Code/typeMismatch`` (the root is not a `Root`).
    public func unarchive(_ bytes: [UInt8], path: String? = nil) throws(SandboxError) -> Root {
        let archived = try ArchivedRoot(bytes: bytes, path: path)
        let name = path.map { "'\($0)'" } ?? "The archive"
        if archived.version == version {
            return try archived.decodeRoot(as: Root.self)
        }
        if archived.version > version {
            throw SandboxError(
                .newerVersion,
                "\(name) is version \(archived.version) of \(Root.self), newer than this code knows (up to version \(version)). Update the app to read it; the file was left as it was.",
                path: path
            )
        }
        guard let migration else {
            throw SandboxError(
                .migrationFailed,
                "\(name) is version \(archived.version) of \(Root.self), and this code (version \(version)) has no migration for older versions. Give the Archiver a migration hook.",
                path: path)
        }
        do {
            return try migration(archived)
        } catch let error as SandboxError {
            throw error
        } catch {
            throw SandboxError(
                .migrationFailed,
                "Migrating \(name) from version \(archived.version) to \(version) failed; the file was left as it was.",
                path: path, underlying: .detail(String(describing: error)))
        }
    }
}

/// An archive read as far as its version, for a migration hook to decode in the old shape.
public struct ArchivedRoot: Sendable {
    /// The version the archive was written with.
    public let version: Int
    /// The format it was written in.
    public let format: PropertyListFormat
    let bytes: [UInt8]
    let path: String?

    init(bytes: [UInt8], path: String?) throws(SandboxError) {
        let header = try PropertyList.decode(ArchiveHeader.self, from: bytes, path: path)
        let name = path.map { "'\($0)'" } ?? "The data"
        guard header.archiver == ArchiveEnvelope<ArchiveHeader>.name, let version = header.version, version >= 1 else {
            throw SandboxError(
                .corrupt,
                "\(name) is a property list but not an archive of this store (no '$archiver' of \(ArchiveEnvelope<ArchiveHeader>.name) with a '$version' of 1 or more). It was left as it was.",
                path: path)
        }
        self.version = version
        self.format = PropertyListFormat.detect(bytes) ?? .binary
        self.bytes = bytes
        self.path = path
    }

    /// Decodes the root in the shape `Old` it had at ``version``.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/typeMismatch`` when the root is not an `Old`.
    public func decodeRoot<Old: Decodable>(as type: Old.Type) throws(SandboxError) -> Old {
        try PropertyList.decode(ArchiveEnvelope<Old>.self, from: bytes, path: path).root
    }
}

/// The stored shape of an archive.
struct ArchiveEnvelope<Root> {
    static var name: String { "SandboxStore.Archiver" }
    var archiver: String
    var version: Int
    var root: Root
}

extension ArchiveEnvelope: Encodable where Root: Encodable {}
extension ArchiveEnvelope: Decodable where Root: Decodable {}

extension ArchiveEnvelope {
    enum CodingKeys: String, CodingKey {
        case archiver = "$archiver"
        case version = "$version"
        case root = "$root"
    }
}

/// The first two fields of an archive, read leniently so a foreign property list gets a clear error.
struct ArchiveHeader: Decodable {
    var archiver: String?
    var version: Int?

    enum CodingKeys: String, CodingKey {
        case archiver = "$archiver"
        case version = "$version"
    }
}
