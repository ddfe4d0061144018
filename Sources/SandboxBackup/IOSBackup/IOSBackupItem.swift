import Foundation
import SandboxCore
import SandboxStore

/// One item of an iOS backup folder: a row of its `Manifest.db`'s `Files` table (domain, relative
/// path, flags) with the metadata of its `file` column, an `MBFile` keyed archive
/// (``IOSBackupItem/archive()``).
struct IOSBackupItem: Sendable, Hashable {
    /// The `flags` column: what the item is.
    enum Kind: Int, Sendable {
        case file = 1
        case directory = 2
        case symlink = 4
    }

    /// `AppDomain-<app-id>`, `AppDomainGroup-<group-id>`, `HomeDomain`, …
    var domain: String
    /// The path in the domain, `/`-separated, never empty or absolute.
    var relativePath: String
    var kind: Kind
    /// The mode with its file-type bits, as `st_mode`.
    var mode: UInt32
    /// Bytes of a file's contents (0 for a folder or link).
    var size: Int64
    /// Unix seconds.
    var lastModified: Int64
    var lastStatusChange: Int64
    var birth: Int64
    var userID: Int = 501
    var groupID: Int = 501
    var inode: Int64 = 0
    /// iOS's protection class number (`NSFileProtectionCompleteUntilFirstUserAuthentication` is 3).
    var protectionClass: Int = 3
    /// A symlink's target.
    var target: String?
    /// The `user.` extended attributes, by name without `user.` (iOS's names, such as
    /// `com.apple.metadata:…`).
    var extendedAttributes: [String: [UInt8]] = [:]
    /// An encrypted backup's wrapped key of the file (the MBFile's `EncryptionKey`: a 4-byte
    /// protection class, then the RFC 3394 wrapped key); `nil` in an unencrypted backup.
    var encryptionKey: [UInt8]?

    /// The file's name in the backup folder: the lowercase hex SHA-1 of `<domain>-<relativePath>`.
    var fileID: String { ManifestDatabase.fileID(domain: domain, relativePath: relativePath) }

    /// The domain of `app`'s data container.
    static func domain(of app: String) -> String { "AppDomain-\(app)" }
}

extension IOSBackupItem {
    /// The `MBFile` class, as iOS archives it.
    static let archivedClass = KeyedArchive.ArchivedClass("MBFile")

    /// The item's `MBFile` archive, as an iPhone writes it: a binary property list whose root is
    /// `$objects[1]` (readers such as mvt take that entry without following `$top`), its
    /// numbers stored in place and its strings by reference.
    func archive() throws(SandboxError) -> [UInt8] {
        var objects: [KeyedArchive.Object] = [.null, .null]
        var fields: [String: KeyedArchive.Field] = [
            "LastModified": .value(.integer(Int(lastModified))),
            "LastStatusChange": .value(.integer(Int(lastStatusChange))),
            "Birth": .value(.integer(Int(birth))),
            "Size": .value(.integer(Int(size))),
            "Mode": .value(.integer(Int(mode))),
            "UserID": .value(.integer(userID)),
            "GroupID": .value(.integer(groupID)),
            "InodeNumber": .value(.integer(Int(inode))),
            "Flags": .value(.integer(0)),
            "ProtectionClass": .value(.integer(protectionClass)),
        ]
        objects.append(.value(.string(relativePath)))
        fields["RelativePath"] = .reference(KeyedArchive.Reference(objects.count - 1))
        if let target {
            objects.append(.value(.string(target)))
            fields["Target"] = .reference(KeyedArchive.Reference(objects.count - 1))
        }
        if !extendedAttributes.isEmpty {
            var entries: [String: PreferenceValue] = [:]
            for (name, value) in extendedAttributes { entries[name] = .data(Data(value)) }
            objects.append(.value(.data(Data(try PropertyList.encode(.dictionary(entries), format: .binary)))))
            fields["ExtendedAttributes"] = .reference(KeyedArchive.Reference(objects.count - 1))
        }
        objects.append(.archivedClass(Self.archivedClass))
        objects[1] = .instance(class: KeyedArchive.Reference(objects.count - 1), fields: fields)
        return try KeyedArchive(objects: objects, top: [KeyedArchive.rootKey: .reference(KeyedArchive.Reference(1))])
            .encoded(format: .binary)
    }

    /// The metadata of the `MBFile` archive `bytes` of the row (`domain`, `relativePath`, `kind`),
    /// read within `limits`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/invalidPackage`` naming `shown` for an archive
    ///   that is not a keyed archive of an `MBFile` with its numbers (the archive reader's bounds
    ///   hold: ``/SandboxCore/SandboxError/Code/tooLarge`` past them).
    init(
        archive bytes: [UInt8], domain: String, relativePath: String, kind: Kind, limits: PropertyListLimits,
        shown: String
    ) throws(SandboxError) {
        let root: ArchivedValue
        do {
            root = try KeyedArchive(bytes: bytes, path: shown, limits: limits).rootValue(limits: limits, path: shown)
        } catch  where error.code != .tooLarge {
            throw IOSBackupProblem.refusal(shown, "has a 'file' column that is not a keyed archive (\(error.message))")
        }
        guard case .object(let description, let fields) = root, description.name == Self.archivedClass.name else {
            throw IOSBackupProblem.refusal(shown, "has a 'file' column that is not an MBFile archive")
        }
        func number(_ key: String, required: Bool = true) throws(SandboxError) -> Int64 {
            switch fields[key] {
            case .integer(let value)?: return Int64(value)
            case .unsignedInteger(let value)? where value <= UInt64(Int64.max): return Int64(value)
            case nil where !required: return 0
            default: throw IOSBackupProblem.refusal(shown, "has an MBFile archive without a whole number '\(key)'")
            }
        }
        self.domain = domain
        self.relativePath = relativePath
        self.kind = kind
        let mode = try number("Mode")
        guard (0...0o177777).contains(mode) else {
            throw IOSBackupProblem.refusal(shown, "has an MBFile 'Mode' out of range (\(mode))")
        }
        self.mode = UInt32(mode)
        size = try number("Size", required: kind == .file)
        guard size >= 0 else { throw IOSBackupProblem.refusal(shown, "has a negative MBFile 'Size'") }
        lastModified = try number("LastModified")
        lastStatusChange = try number("LastStatusChange", required: false)
        birth = try number("Birth", required: false)
        if case .string(let target)? = fields["Target"] { self.target = target }
        switch fields["EncryptionKey"] {
        case nil, .null?: break
        case .data(let key)?: encryptionKey = Array(key)
        default: throw IOSBackupProblem.refusal(shown, "has an MBFile 'EncryptionKey' that is not data")
        }
        if case .data(let attributes)? = fields["ExtendedAttributes"] {
            let value: PreferenceValue
            do {
                value = try PropertyList.value(from: Array(attributes), path: shown, limits: limits)
            } catch  where error.code != .tooLarge {
                throw IOSBackupProblem.refusal(shown, "has MBFile 'ExtendedAttributes' that are not a property list")
            }
            guard case .dictionary(let entries) = value else {
                throw IOSBackupProblem.refusal(shown, "has MBFile 'ExtendedAttributes' that are not a dictionary")
            }
            for (name, entry) in entries {
                guard case .data(let bytes) = entry, !name.isEmpty, !name.utf8.contains(0),
                    name.utf8.count + 5 <= 255
                else {
                    throw IOSBackupProblem.refusal(shown, "has an extended attribute '\(name)' that is not one")
                }
                extendedAttributes[name] = Array(bytes)
            }
        }
    }
}
