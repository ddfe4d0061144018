import SandboxCore

@testable import SandboxBackup

/// A repository storage that passes every call to `base`: the tests' storages that fail, record
/// or interleave something subclass it and override only the calls they change, calling `super`.
///
/// `@unchecked Sendable`: a class open to subclassing cannot be checked; this one holds `base`
/// only, and each subclass guards its own state.
class ForwardingStorage: RepositoryStorage, @unchecked Sendable {
    let base: any RepositoryStorage

    init(_ base: any RepositoryStorage) {
        self.base = base
    }

    var location: String { base.location }
    var preferredConcurrency: Int { base.preferredConcurrency }

    func putIfAbsent(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) -> Bool {
        try base.putIfAbsent(bytes, as: name)
    }
    func replace(_ bytes: [UInt8], as name: ObjectName) throws(SandboxError) { try base.replace(bytes, as: name) }
    func get(_ name: ObjectName) throws(SandboxError) -> [UInt8] { try base.get(name) }
    func get(_ name: ObjectName, range: Range<Int64>) throws(SandboxError) -> [UInt8] {
        try base.get(name, range: range)
    }
    func size(of name: ObjectName) throws(SandboxError) -> Int64? { try base.size(of: name) }
    func list(_ kind: ObjectKind) throws(SandboxError) -> [ObjectName] { try base.list(kind) }
    func delete(_ name: ObjectName) throws(SandboxError) { try base.delete(name) }
    func synchronize() throws(SandboxError) { try base.synchronize() }
    func close() async { await base.close() }
}
