/// Versioned archives of a root value: the role of `NSKeyedArchiver`, with an explicit version.
///
/// Archives are written in Apple's `NSKeyedArchiver` format (a ``KeyedArchive``, binary by
/// default), so Foundation on iOS and macOS — and any reader of the format — reads them: the
/// root, mapped through its property-list form (a struct or a dictionary is an `NSDictionary`, an
/// array an `NSArray`, a `Date` an `NSDate`, `Data` an `NSData`, numbers and booleans `NSNumber`,
/// `nil` an `NSNull`; a `UUID` is its string, a `URL` its `Codable` form, a dictionary of
/// `relative` and `base`), is `$top`'s `root`, and the version of the
/// root's shape is `$top`'s `SandboxStore.version`, an integer in place:
///
///     { "$archiver": "NSKeyedArchiver", "$version": 100000, "$objects": […],
///       "$top": { "root": <UID>, "SandboxStore.version": 3 } }
///
/// Reading takes that, an archive made elsewhere (an iOS app's: no `SandboxStore.version`, so
/// it is read as the current version; `NSUUID` and `NSURL` read into `UUID` and `URL` fields), and
/// the store's earlier format, `{ "$archiver": "SandboxStore.Archiver", "$version": 3, "$root": { … } }`,
/// which existing files hold.
///
/// Reading an archive of the current version decodes the root directly. An older one goes through
/// the migration hook, which decodes the old shape with ``ArchivedRoot/decodeRoot(as:)`` and builds
/// the current one. A newer one fails with ``SandboxCore/SandboxError/Code/newerVersion``: this code cannot know
/// what a later version meant, and the file is left as it was.
///
/// Unlike `NSKeyedUnarchiver` on Linux, which traps on cyclic graphs and disallowed classes, a
/// damaged archive here is a thrown error, never a crash: a cycle where the root's value is read is
/// ``SandboxCore/SandboxError/Code/cyclicReference``.
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
        var archive = KeyedArchive(root: try ArchivedValue(encoding: root))
        archive.top[ArchivedRoot.versionKey] = .value(.integer(version))
        return try archive.encoded(format: format)
    }

    /// The root of an archive, migrated to the current version if it is older.
    ///
    /// - Parameters:
    ///   - bytes: the archive, as ``archive(_:)`` made it, as the store's earlier format held it, or
    ///     as another `NSKeyedArchiver` made it (untrusted: every part is checked).
    ///   - path: names the file in error messages.
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/corrupt`` (not an archive, or damaged),
    ///   ``SandboxCore/SandboxError/Code/tooLarge`` (past ``PropertyListLimits/default``),
    ///   ``SandboxCore/SandboxError/Code/cyclicReference`` (the root contains itself),
    ///   ``SandboxCore/SandboxError/Code/newerVersion``, ``SandboxCore/SandboxError/Code/migrationFailed`` (an older archive and
    ///   no hook, or the hook threw), ``SandboxCore/SandboxError/Code/typeMismatch`` (the root is not a `Root`).
    public func unarchive(_ bytes: [UInt8], path: String? = nil) throws(SandboxError) -> Root {
        let archived = try ArchivedRoot(bytes: bytes, path: path, currentVersion: version)
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
    /// The version the archive was written with (the current one for an archive made elsewhere).
    public let version: Int
    /// The format it was written in.
    public let format: PropertyListFormat
    /// Whether it is an `NSKeyedArchiver` archive (false: the store's earlier format).
    public let isKeyedArchive: Bool
    let bytes: [UInt8]
    let path: String?
    /// A keyed archive's root, read.
    let root: ArchivedValue?

    /// The key of `$top` that holds the version of the root's shape.
    static let versionKey = "SandboxStore.version"

    init(bytes: [UInt8], path: String?, currentVersion: Int) throws(SandboxError) {
        let tree = try PropertyList.value(from: bytes, path: path, limits: .default, readingUIDs: true)
        let name = path.map { "'\($0)'" } ?? "The data"
        self.format = PropertyListFormat.detect(bytes) ?? .binary
        self.bytes = bytes
        self.path = path
        guard case .dictionary(let plist) = tree, case .string(let archiver)? = plist["$archiver"] else {
            throw Self.notAnArchive(name, path: path)
        }
        if archiver == KeyedArchive.archiverName {
            let archive = try KeyedArchive(propertyList: tree, path: path)
            switch archive.top[Self.versionKey] {
            case nil: version = currentVersion
            case .value(.integer(let stored))? where stored >= 1: version = stored
            default:
                throw KeyedArchiveProblem(path: path).corrupt(
                    "its '$top' key '\(Self.versionKey)' is not an integer of 1 or more")
            }
            root = try archive.rootValue(path: path)
            isKeyedArchive = true
            return
        }
        let header = try PropertyList.decode(ArchiveHeader.self, from: bytes, path: path)
        guard header.archiver == ArchiveEnvelope<ArchiveHeader>.name, let stored = header.version, stored >= 1 else {
            throw Self.notAnArchive(name, path: path)
        }
        version = stored
        root = nil
        isKeyedArchive = false
    }

    private static func notAnArchive(_ name: String, path: String?) -> SandboxError {
        SandboxError(
            .corrupt,
            "\(name) is a property list but not an archive (no '$archiver' of \(KeyedArchive.archiverName), nor of \(ArchiveEnvelope<ArchiveHeader>.name) with a '$version' of 1 or more). It was left as it was.",
            path: path)
    }

    /// Decodes the root in the shape `Old` it had at ``version``.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/typeMismatch`` when the root is not an `Old`.
    public func decodeRoot<Old: Decodable>(as type: Old.Type) throws(SandboxError) -> Old {
        guard let root else {
            return try PropertyList.decode(ArchiveEnvelope<Old>.self, from: bytes, path: path).root
        }
        return try PropertyList.decode(Old.self, fromValue: try root.propertyListValue(path: path), path: path)
    }
}

extension ArchivedValue {
    /// The value of `value`, through its property-list form (Foundation's `PropertyListEncoder`).
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/encodingFailed``.
    init<Value: Encodable>(encoding value: Value) throws(SandboxError) {
        // Wrapped in an array, so that a bare string or number is a root too.
        let bytes = try PropertyList.encode([value], format: .binary)
        guard case .array(let values) = try PropertyList.value(from: bytes, limits: .unlimitedSize),
            let first = values.first
        else {
            throw SandboxError(.encodingFailed, "A \(Value.self) has no property-list form to archive.")
        }
        self.init(propertyList: first)
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
