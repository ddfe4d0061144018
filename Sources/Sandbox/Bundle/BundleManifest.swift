import Foundation
import SandboxCore

/// The list of everything in a signed bundle: each file's relative path, size, permission bits
/// and SHA-256, and each directory (so an added empty directory is noticed too); and the app and
/// version the bundle is for (``identity``); and the App Groups it belongs to (``appGroups``), its
/// one entitlement.
///
/// Stored as `_CodeSignature/manifest.json` in a canonical encoding (``canonicalBytes``): entries
/// sorted by the bytes of their paths, keys in a fixed order, no insignificant spaces, one entry a
/// line. The same bundle always gives the same bytes, and the signature covers exactly them; a
/// manifest whose bytes are not canonical is refused when read.
///
/// What a manifest holds: regular files and directories, hidden ones included, everything but
/// `_CodeSignature/` itself. Symbolic links, FIFOs, sockets and devices are refused when signing
/// (a link could point out of the bundle; copy its target in instead).
public struct BundleManifest: Sendable, Hashable {
    /// The format's name, stored in the file.
    public static let format = "sandbox-bundle-manifest/2"

    /// One item of the bundle.
    public struct Entry: Sendable, Hashable {
        /// What the item is; the raw value is the `type` stored in the manifest.
        public enum Kind: String, Sendable, Hashable, Codable {
            /// A regular file.
            case file
            /// A directory.
            case directory
        }

        /// The path relative to the bundle, `/`-separated. Its names are valid UTF-8 (signing refuses
        /// others), compared byte for byte: an NFD spelling of an NFC name is another item.
        public var path: ContainerPath
        /// Whether the item is a file or a directory.
        public var kind: Kind
        /// The permission bits when signed (e.g. `0o755`); only the executable bits survive install.
        public var mode: UInt16
        /// The size in bytes (0 for a directory).
        public var size: Int64
        /// The lowercase hex SHA-256 of a file's contents; `nil` for a directory.
        public var sha256: String?

        /// Whether any executable bit is set: the file is installed 0555 rather than 0444.
        public var isExecutable: Bool { mode & 0o111 != 0 }

        /// The permission bits the item has once installed: read-only, executable kept.
        public var sealedMode: UInt16 { kind == .directory || isExecutable ? 0o555 : 0o444 }

        /// An entry with the given values, taken as they are
        /// (``BundleManifest/init(storedBytes:source:)`` is what checks a stored manifest's
        /// entries).
        public init(path: ContainerPath, kind: Kind, mode: UInt16, size: Int64, sha256: String?) {
            self.path = path
            self.kind = kind
            self.mode = mode
            self.size = size
            self.sha256 = sha256
        }
    }

    /// The items, sorted by ``canonicalOrder(_:_:)``.
    public private(set) var entries: [Entry]
    /// The app and version the bundle is for.
    public var identity: BundleIdentity
    /// The App Groups the bundle belongs to (`com.apple.security.application-groups` of its
    /// entitlements), sorted, without repeats: signed with the rest, so a bundle cannot join a
    /// group without being signed again. Stored only when there are some, so a manifest without
    /// groups has the bytes it always had.
    public private(set) var appGroups: [AppGroupIdentifier]

    /// The directory the signature lives in, at the bundle's top.
    public static let signatureDirectory = ContainerPath(constant: "_CodeSignature")
    static let manifestFile = ContainerPath(constant: "_CodeSignature/manifest.json")
    static let signatureFile = ContainerPath(constant: "_CodeSignature/signature")

    /// A manifest of `entries`, which it sorts by ``canonicalOrder(_:_:)``, for the app and
    /// version `identity`, member of `appGroups` (sorted here, repeats dropped).
    public init(entries: [Entry], identity: BundleIdentity, appGroups: [AppGroupIdentifier] = []) {
        self.entries = entries.sorted(by: Self.canonicalOrder)
        self.identity = identity
        self.appGroups = Set(appGroups).sorted()
    }

    /// Paths in the order of their UTF-8 bytes (names joined by `/`), independent of locale and of
    /// Swift's collation.
    public static func canonicalOrder(_ lhs: Entry, _ rhs: Entry) -> Bool {
        lhs.path.storedText.utf8.lexicographicallyPrecedes(rhs.path.storedText.utf8)
    }

    /// The total size of the files.
    public var totalSize: Int64 { entries.reduce(0) { $0 + $1.size } }

    /// The canonical bytes: what is stored and signed.
    public var canonicalBytes: [UInt8] {
        var text = "{"
        if !appGroups.isEmpty {
            text += "\"appGroups\":[" + appGroups.map { Self.quoted($0.rawValue) }.joined(separator: ",") + "],"
        }
        text += "\"entries\":["
        for (index, entry) in entries.enumerated() {
            text += index == 0 ? "\n" : ",\n"
            text += "{\"mode\":\"0\(String(entry.mode, radix: 8))\",\"path\":\(Self.quoted(entry.path.storedText))"
            if let sha256 = entry.sha256 { text += ",\"sha256\":\"\(sha256)\"" }
            text += ",\"size\":\(entry.size),\"type\":\"\(entry.kind.rawValue)\"}"
        }
        text += "\n],\"format\":\"\(Self.format)\",\"identifier\":\(Self.quoted(identity.identifier.rawValue))"
        text += ",\"version\":\(Self.quoted(identity.version.rawValue))}\n"
        return Array(text.utf8)
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\u00XX`, the rest as UTF-8.
    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case _ where scalar.value < 0x20:
                result += "\\u" + Hex.string(of: scalar.value, minimumDigits: 4)
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }
}

extension ContainerPath {
    /// The path as a manifest stores it: its exact text (names are valid UTF-8 in a manifest;
    /// the escaped display of another name could never match the disk, so it is refused there).
    var storedText: String { string ?? description }
}
