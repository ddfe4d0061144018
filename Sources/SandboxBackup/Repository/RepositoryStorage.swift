import SandboxCore

/// The kinds of object a repository holds, each in its own folder.
public enum ObjectKind: String, Sendable, CaseIterable {
    /// `config`: the format version, the repository's id, chunking, whether it is encrypted and,
    /// when it is, the authentication of those fields under the master key.
    case config
    /// `keys/<id>`: the master key sealed under a password-derived key (encrypted repositories).
    case key = "keys"
    /// `data/<2 hex>/<id>`: chunks of file contents, trees, manifests, keychains. Write-once.
    case data
    /// `index/<id>`: which blobs a backup stored (written after its blobs).
    case index
    /// `snapshots/<id>`: one record per backup (written last).
    case snapshot = "snapshots"
    /// `locks/<name>`: who holds the repository: `exclusive` (a prune), `shared-<owner>` (a backup,
    /// a copy, a check, a restore).
    case lock = "locks"
}

/// The name of one object in a repository.
public struct ObjectName: Hashable, Sendable, CustomStringConvertible {
    /// The folder the object is in.
    public var kind: ObjectKind
    /// Its name in that folder (for data, 64 lowercase hex digits; for the config, `config`).
    public var name: String

    /// The object `name` of `kind`; checked when it is used (a name with `/` or a leading `.` is refused).
    public init(_ kind: ObjectKind, _ name: String) {
        self.kind = kind
        self.name = name
    }

    /// The repository's `config`.
    public static let config = ObjectName(.config, "config")

    /// Where the object lives relative to the repository: `data/ab/abcd…`, `snapshots/…`, `config`.
    public var description: String {
        switch kind {
        case .config: "config"
        case .data: "data/\(name.prefix(2))/\(name)"
        default: "\(kind.rawValue)/\(name)"
        }
    }
}

/// Where a repository's objects are stored: named objects that are written once (put-if-absent),
/// read, listed and deleted. ``LocalRepositoryStorage`` keeps them in a directory; an S3 backend
/// (PUT with `If-None-Match: *`, GET, ListObjectsV2, DELETE) fits the same four calls.
///
/// A put is atomic: an object appears complete or not at all, also when the process is killed.
/// Objects other than data are durable when the put returns; data objects (many, small) become
/// durable at the next ``synchronize()``, which a backup calls before it writes the index that
/// refers to them — one flush instead of two `fsync`s an object (10,000 small files cost 20,000).
///
/// The calls block (file-system calls; an S3 storage's requests): the library makes them on
/// threads of its own, beneath its `async` entry points (``Backup``, ``Restore``, ``Checker``,
/// ``Pruner``, ``Repository``). A caller making them itself makes them on a thread it owns, never
/// from a task.
public protocol RepositoryStorage: Sendable {
    /// Where the repository is, for messages.
    var location: String { get }

    /// How many calls the library makes to the storage at once, each on a thread of its own: a
    /// restore's blob readers, a check's readers (`--read-data`), a prune's deletions, a backup's
    /// blob writers. A directory: 2 (the second core); S3: 8 (each request waits a round trip).
    var preferredConcurrency: Int { get }

    /// Stores `bytes` as `name` unless an object of that name exists.
    ///
    /// - Returns: whether the object was stored (`false`: it existed).
    /// - Throws: ``/SandboxCore/SandboxError/Code/noSpace`` and other storage failures.
    func putIfAbsent(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) -> Bool

    /// Stores `bytes` as `name`, replacing an object of that name, atomically and durably (a lock
    /// refreshing its expiry).
    ///
    /// - Throws: storage failures.
    func replace(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError)

    /// The bytes of `name`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when there is no such object.
    func get(_ name: ObjectName) throws(SandboxError) -> [UInt8]

    /// The bytes `range` of `name` (a blob in a pack).
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when there is no such object;
    ///   ``SandboxCore/SandboxError/Code/repositoryDamaged`` naming the object when `range` ends
    ///   past its end.
    func get(_ name: ObjectName, range: Range<Int64>) throws(SandboxError) -> [UInt8]

    /// The size of `name` in bytes, or `nil` when there is no such object.
    func size(of name: ObjectName) throws(SandboxError) -> Int64?

    /// The objects of `kind`, in no particular order; interrupted writes are not listed.
    func list(_ kind: ObjectKind) throws(SandboxError) -> [ObjectName]

    /// Removes `name`; removing a missing object is not an error.
    func delete(_ name: ObjectName) throws(SandboxError)

    /// Makes every object put so far durable (survive a power cut).
    func synchronize() throws(SandboxError)

    /// Releases what the storage holds open (an S3 storage's HTTP client); call it once nothing
    /// uses the storage any more. Does nothing by default.
    func close() async
}

extension RepositoryStorage {
    /// Two: one call waiting on the device while another computes.
    public var preferredConcurrency: Int { 2 }

    /// Nothing to release.
    public func close() async {}
}

extension ObjectName {
    /// The error for a read of `range` from this object, which is `size` bytes long.
    func rangePastEnd(_ range: Range<Int64>, size: Int64?, in location: String) -> SandboxError {
        SandboxError(
            .repositoryDamaged,
            "The repository object '\(self)' in '\(location)' is \(size.map { "\($0) bytes" } ?? "shorter than expected"), too short for the bytes \(range.lowerBound)..<\(range.upperBound) the index says it holds: it is truncated or damaged. Check the repository to see which files it affects.",
            path: description)
    }
}
