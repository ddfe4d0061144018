import SandboxCore

/// The keybag of an encrypted iOS backup: `Manifest.plist`'s `BackupKeyBag`, as iOS 10.2 and later
/// write it.
///
/// A sequence of tag–length–value items (a 4-byte ASCII tag, a 4-byte big-endian length, the
/// value). The header comes first — `VERS`, `TYPE`, `UUID`, `HMCK`, `WRAP`, `SALT`, `ITER`,
/// `DPWT`, `DPIC`, `DPSL` — then one block per protection class, each opened by its `UUID`:
/// `CLAS`, `WRAP`, `KTYP`, `WPKY` (the class key, wrapped under the password's key). Integers are
/// 4-byte big-endian values.
///
/// The bytes come from a folder someone else made, so everything is bounded before any work is
/// done: the keybag's size, the number of classes, each value's length, and the iteration counts
/// (a keybag asking for billions of PBKDF2 rounds would make one password try take hours).
public struct IOSBackupKeyBag: Sendable, Hashable {
    /// One protection class's key, still wrapped.
    public struct ClassKey: Sendable, Hashable {
        /// The protection class (1…11 on iOS: `NSFileProtectionComplete` is 1).
        public var protectionClass: UInt32
        /// How the key is wrapped: bit 2 (value 2) is the backup password's key, the only one a
        /// backup's keys are wrapped with.
        public var wrap: UInt32
        /// The key's type (0 AES, 1 Curve25519), when given.
        public var keyType: UInt32?
        /// The RFC 3394 wrapped key (40 bytes), when the class has one.
        public var wrappedKey: [UInt8]?
    }

    /// `VERS`, when given.
    public var version: UInt32?
    /// `TYPE` (1 for a backup keybag), when given.
    public var type: UInt32?
    /// `SALT`, the salt of the second derivation (PBKDF2-HMAC-SHA1).
    public var salt: [UInt8]
    /// `ITER`, the rounds of the second derivation.
    public var iterations: Int
    /// `DPSL`, the salt of the first derivation (PBKDF2-HMAC-SHA256, since iOS 10.2).
    public var dataProtectionSalt: [UInt8]
    /// `DPIC`, the rounds of the first derivation (10,000,000 on iOS).
    public var dataProtectionIterations: Int
    /// The classes, in the keybag's order, each once.
    public var classes: [ClassKey]

    /// The largest keybag read: 64 KiB (iOS writes about 1.5 KiB).
    public static let maximumSize = 64 << 10
    /// The most classes a keybag may list: 32 (iOS lists 10 or 11).
    public static let maximumClasses = 32
    /// The most `DPIC` rounds accepted: 20,000,000, twice what iOS writes (iOS's count took 8.9 s
    /// on a loaded 2-core machine). The same cap iphone-backup-decrypt applies.
    public static let maximumDataProtectionIterations = 20_000_000
    /// The most `ITER` rounds accepted: 1,000,000 (iOS writes 10,000), as iphone-backup-decrypt.
    public static let maximumIterations = 1_000_000
    /// The most bytes one salt may have (iOS writes 20).
    public static let maximumSaltSize = 256

    /// Reads a keybag.
    ///
    /// - Parameters:
    ///   - bytes: `Manifest.plist`'s `BackupKeyBag`.
    ///   - path: names the backup's `Manifest.plist` in errors.
    /// - Throws: ``SandboxCore/SandboxError/Code/iosBackupDamaged`` for a keybag larger than
    ///   ``maximumSize``, a truncated item or one whose length runs past the end, a header item
    ///   given twice or missing (`SALT`, `ITER`, `DPSL`, `DPIC`: backups made before iOS 10.2 have
    ///   no `DPSL`/`DPIC` and are not read), a class item outside a class block or twice in one,
    ///   a class listed twice or more than ``maximumClasses``, an integer not 4 bytes, a wrapped
    ///   key not 40 bytes, a salt empty or over ``maximumSaltSize``, or an iteration count of 0
    ///   or over ``maximumDataProtectionIterations`` / ``maximumIterations``.
    public init(parsing bytes: [UInt8], path: String) throws(SandboxError) {
        func damaged(_ problem: String) -> SandboxError {
            SandboxError(
                .iosBackupDamaged,
                "The BackupKeyBag in '\(path)' \(problem); the backup's Manifest.plist is damaged or was not written by iOS.",
                path: path)
        }
        guard bytes.count <= Self.maximumSize else {
            throw damaged("is \(bytes.count) bytes, more than the \(Self.maximumSize)-byte limit")
        }
        var header: [String: [UInt8]] = [:]
        var headerUUID = false
        var classes: [ClassKey] = []
        var current: [String: [UInt8]]?

        func closeClass() throws(SandboxError) {
            guard let block = current else { return }
            guard let number = block["CLAS"] else { throw damaged("has a class block without CLAS") }
            let protectionClass = try Self.integer(number, "CLAS", damaged)
            guard !classes.contains(where: { $0.protectionClass == protectionClass }) else {
                throw damaged("lists protection class \(protectionClass) twice")
            }
            guard classes.count < Self.maximumClasses else {
                throw damaged("lists more than \(Self.maximumClasses) protection classes")
            }
            let wrappedKey = block["WPKY"]
            if let wrappedKey, wrappedKey.count != 40 {
                throw damaged(
                    "holds a \(wrappedKey.count)-byte key for class \(protectionClass), not a 40-byte wrapped key")
            }
            classes.append(
                ClassKey(
                    protectionClass: protectionClass,
                    wrap: try block["WRAP"].map { v throws(SandboxError) in
                        try Self.integer(v, "WRAP", damaged)
                    } ?? 0,
                    keyType: try block["KTYP"].map { v throws(SandboxError) in try Self.integer(v, "KTYP", damaged) },
                    wrappedKey: wrappedKey))
        }

        var offset = 0
        while offset < bytes.count {
            guard bytes.count - offset >= 8 else {
                throw damaged("ends in a truncated item (\(bytes.count - offset) bytes at offset \(offset))")
            }
            let tagBytes = bytes[offset..<offset + 4]
            let tag = String(decoding: tagBytes, as: UTF8.self)
            let length = bytes[offset + 4..<offset + 8].reduce(0) { $0 << 8 | Int($1) }
            guard length <= bytes.count - offset - 8 else {
                throw damaged("has an item '\(tag)' of \(length) bytes running past its end at offset \(offset)")
            }
            let value = Array(bytes[offset + 8..<offset + 8 + length])
            offset += 8 + length
            switch tag {
            case "UUID" where !headerUUID:
                headerUUID = true
            case "WRAP" where current == nil:
                guard header["WRAP"] == nil else { throw damaged("has the item 'WRAP' twice") }
                header["WRAP"] = value
            case "UUID":
                try closeClass()
                current = [:]
            case "CLAS", "WRAP", "KTYP", "WPKY", "PBKY":
                guard current != nil else { throw damaged("has the class item '\(tag)' outside a class block") }
                guard current?[tag] == nil else { throw damaged("has the item '\(tag)' twice in one class block") }
                current?[tag] = value
            default:
                guard header[tag] == nil else { throw damaged("has the item '\(tag)' twice") }
                header[tag] = value
            }
        }
        try closeClass()

        func required(_ tag: String) throws(SandboxError) -> [UInt8] {
            guard let value = header[tag] else {
                throw damaged(
                    "has no '\(tag)'\(tag.hasPrefix("DP") ? " (backups made before iOS 10.2 are not read)" : "")")
            }
            return value
        }
        func salt(_ tag: String) throws(SandboxError) -> [UInt8] {
            let value = try required(tag)
            guard (1...Self.maximumSaltSize).contains(value.count) else {
                throw damaged("has a \(value.count)-byte '\(tag)', not 1…\(Self.maximumSaltSize) bytes")
            }
            return value
        }
        func rounds(_ tag: String, maximum: Int) throws(SandboxError) -> Int {
            let value = Int(try Self.integer(try required(tag), tag, damaged))
            guard (1...maximum).contains(value) else {
                throw damaged("asks for \(value) rounds in '\(tag)'; this reader accepts 1…\(maximum)")
            }
            return value
        }
        version = try header["VERS"].map { v throws(SandboxError) in try Self.integer(v, "VERS", damaged) }
        type = try header["TYPE"].map { v throws(SandboxError) in try Self.integer(v, "TYPE", damaged) }
        self.salt = try salt("SALT")
        iterations = try rounds("ITER", maximum: Self.maximumIterations)
        dataProtectionSalt = try salt("DPSL")
        dataProtectionIterations = try rounds("DPIC", maximum: Self.maximumDataProtectionIterations)
        guard !classes.isEmpty else { throw damaged("lists no protection class") }
        self.classes = classes
    }

    /// A 4-byte big-endian integer.
    private static func integer(
        _ value: [UInt8], _ tag: String, _ damaged: (String) -> SandboxError
    ) throws(SandboxError) -> UInt32 {
        guard value.count == 4 else { throw damaged("has a \(value.count)-byte '\(tag)', not a 4-byte integer") }
        return value.reduce(0) { $0 << 8 | UInt32($1) }
    }
}
