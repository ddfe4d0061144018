import Foundation
import Sandbox
import SandboxCLISupport
import SystemPackage

/// One item as `ls --json` prints it.
struct ItemSummary: Encodable {
    var name: String
    var path: String
    var type: ItemType
    var size: Int64?
    var modified: Date?

    /// An item named `name` (exact, or escaped when not UTF-8) at the container path `path`.
    init(name: String, path: String, type: ItemType, attributes: FileAttributes?) {
        self.name = name
        self.path = path
        self.type = type
        size = attributes?.size
        modified = attributes?.modificationDate
    }
}

/// An item's resource values as `stat` prints them.
struct StatSummary: Encodable {
    var path: String
    var type: ItemType
    var size: Int64
    var allocatedSize: Int64
    var permissions: String
    var owner: UInt32
    var group: UInt32
    var links: UInt32
    var inode: UInt64
    var created: Date?
    var modified: Date
    var accessed: Date
    var changed: Date
    var excludedFromBackup: Bool?
    /// The Data Protection class (`user.sandbox.protection`), `nil` for an unprotected item.
    var protection: String?

    init(path: String, attributes: FileAttributes, excludedFromBackup: Bool?) {
        self.path = path
        type = attributes.type
        size = attributes.size
        allocatedSize = attributes.allocatedSize
        permissions = "0" + String(attributes.permissions.rawValue, radix: 8)
        owner = attributes.ownerID
        group = attributes.groupID
        links = attributes.linkCount
        inode = attributes.inode
        created = attributes.creationDate
        modified = attributes.modificationDate
        accessed = attributes.accessDate
        changed = attributes.statusChangeDate
        self.excludedFromBackup = excludedFromBackup
    }

    var text: String {
        let format = UTCTimestamp.iso8601WithMilliseconds
        return [
            "path: \(path)", "type: \(type)", "size: \(size)", "allocated: \(allocatedSize)",
            "permissions: \(permissions)", "owner: \(owner)", "group: \(group)", "links: \(links)", "inode: \(inode)",
            "created: \(created.map(format) ?? "unknown")", "modified: \(format(modified))",
            "accessed: \(format(accessed))", "changed: \(format(changed))",
            "excluded from backup: \(excludedFromBackup.map { $0 ? "yes" : "no" } ?? "unknown")",
        ].joined(separator: "\n") + (protection.map { "\nprotection: \($0)" } ?? "")
    }
}
