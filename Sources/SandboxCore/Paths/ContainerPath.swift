/// A path inside a container, relative to its root.
///
/// The only way to make one from text is validation (``init(_:)``), which refuses what can be
/// refused without the file system: absolute paths, `..` that climbs above the root, NUL bytes,
/// empty paths and names or paths longer than Linux allows. Lexical checks are necessary, never
/// sufficient: symlinks can still point out, so every operation resolves a `ContainerPath` beneath
/// the container's directory descriptor with the kernel's help (see ``ConfinedRoot``).
///
/// `.` components are dropped; `..` components are kept, so that the kernel resolves them
/// physically (`a/../f` where `a` is a symlink to `b/c` names `b/f`, as it would for `open(2)`).
///
/// A path is a list of ``FileName``s, which are bytes: paths listed from disk keep names that are
/// not valid UTF-8 exactly, and paths compare, hash and sort by bytes (NFC and NFD spellings of one
/// word are different paths, as they are different files).
public struct ContainerPath: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The names from the root down, `..` included, none empty, none `.`.
    public let names: [FileName]
    /// Whether the path was written with a trailing `/`, which requires a directory.
    public let requiresDirectory: Bool

    /// The container's root itself.
    public static let root = ContainerPath(checkedNames: [], requiresDirectory: true)

    /// Longest path accepted, in bytes (Linux `PATH_MAX` less the terminating NUL).
    public static let maximumLength = 4095
    /// Longest component accepted, in bytes (Linux `NAME_MAX`).
    public static let maximumComponentLength = FileName.maximumLength

    /// Validates a path written relative to the container's root, such as `Documents/a.txt`.
    ///
    /// - Throws: ``SandboxError`` with ``SandboxError/Code/escapesContainer`` for an absolute path,
    ///   a NUL byte, or `..` that climbs above the root; ``SandboxError/Code/invalidPath`` for an
    ///   empty path; ``SandboxError/Code/nameTooLong`` past the Linux limits.
    public init(_ string: String) throws(SandboxError) {
        guard !string.isEmpty else {
            throw .rule(
                .invalidPath,
                "The path is empty. Give a path relative to the container's home, such as 'Documents/a.txt', or '.' for the home itself.",
                path: string)
        }
        guard !string.utf8.contains(0) else {
            throw .rule(
                .escapesContainer,
                "The path contains a NUL byte, which would truncate it; it is refused as an attempt to escape the container.",
                path: string.replacingNUL)
        }
        guard string.utf8.first != UInt8(ascii: "/") else {
            throw .rule(.escapesContainer, SandboxError.escapeMessage(string), path: string)
        }
        guard string.utf8.count <= Self.maximumLength else {
            throw .rule(
                .nameTooLong, "The path is \(string.utf8.count) bytes long; Linux allows \(Self.maximumLength).",
                path: String(string.prefix(64)) + "…")
        }
        var names: [FileName] = []
        var depth = 0
        // Split on the byte '/', as the kernel does — never on Characters: a combining or
        // prepended mark next to '/' makes one Character of both, which would hide a separator
        // (and a '..') from this check but not from the kernel.
        for part in string.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            guard part.count <= Self.maximumComponentLength else {
                let shown = String(decoding: part.prefix(32), as: UTF8.self)
                throw .rule(
                    .nameTooLong,
                    "The name '\(shown)…' in '\(string.prefix(64))' is \(part.count) bytes long; Linux allows \(Self.maximumComponentLength).",
                    path: String(string.prefix(64)))
            }
            if part.elementsEqual(".".utf8) { continue }
            if part.elementsEqual("..".utf8) {
                depth -= 1
                guard depth >= 0 else {
                    throw .rule(.escapesContainer, SandboxError.escapeMessage(string), path: string)
                }
            } else {
                depth += 1
            }
            names.append(FileName(uncheckedBytes: part))
        }
        self.init(checkedNames: names, requiresDirectory: string.utf8.last == UInt8(ascii: "/"))
    }

    /// A path written in the source code, such as `"Library/Caches"`.
    ///
    /// A literal that fails validation is a programmer error and traps, as an out-of-range array
    /// index does; paths from users go through ``init(_:)``, which throws.
    public init(constant: StaticString) {
        let string = constant.description
        do {
            self = try ContainerPath(string)
        } catch {
            preconditionFailure("invalid constant container path '\(string)': \(error.message)")
        }
    }

    private init(checkedNames: [FileName], requiresDirectory: Bool) {
        self.names = checkedNames
        self.requiresDirectory = requiresDirectory
    }

    /// Validates a single name (no `/`, not `.` or `..`) for use as the last component.
    ///
    /// - Throws: as ``FileName/init(_:)``.
    public static func validateName(_ name: String) throws(SandboxError) -> String {
        _ = try FileName(name)
        return name
    }

    /// The path with one more name appended.
    ///
    /// - Throws: as ``FileName/init(_:)``.
    public func appending(_ name: String) throws(SandboxError) -> ContainerPath {
        appending(try FileName(name))
    }

    /// The path with one more name appended: a name listed from a directory, or validated.
    public func appending(_ name: FileName) -> ContainerPath {
        ContainerPath(checkedNames: names + [name], requiresDirectory: false)
    }

    /// The path with several names appended, each listed from a directory or validated.
    package func appending(contentsOf more: some Sequence<FileName>) -> ContainerPath {
        ContainerPath(checkedNames: names + more, requiresDirectory: false)
    }

    /// Appends a name read from the file system (already a valid single component).
    package func appendingTrusted(_ name: String) -> ContainerPath {
        appending(FileName(uncheckedBytes: name.utf8))
    }

    /// The path without its last component; the root's parent is the root.
    public var parent: ContainerPath {
        ContainerPath(checkedNames: Array(names.dropLast()), requiresDirectory: true)
    }

    /// The last name, or `nil` for the root.
    public var lastName: FileName? { names.last }

    /// Whether this is the container's root.
    public var isRoot: Bool { names.isEmpty }

    /// The length in bytes as the kernel sees it (names joined by `/`).
    public var byteCount: Int { names.reduce(max(names.count - 1, 0)) { $0 + $1.count } }

    /// The path for display, `.` for the root: each name's ``FileName/description``, so a name that
    /// is not valid UTF-8 shows escapes and names no item. Never parse it back to reach the item.
    public var description: String { names.isEmpty ? "." : names.map(\.description).joined(separator: "/") }

    /// Whether `self` lies at or beneath `other`, comparing names byte by byte.
    public func isDescendant(of other: ContainerPath) -> Bool {
        names.count >= other.names.count && names.prefix(other.names.count).elementsEqual(other.names)
    }

    /// Paths are equal when their names are, byte for byte: `a/` and `a` name the same item.
    public static func == (lhs: ContainerPath, rhs: ContainerPath) -> Bool {
        lhs.names == rhs.names
    }

    /// Hashes the names' bytes, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(names)
    }

    /// Orders by names, each by bytes.
    public static func < (lhs: ContainerPath, rhs: ContainerPath) -> Bool {
        lhs.names.lexicographicallyPrecedes(rhs.names)
    }
}

extension String {
    /// The string with NUL bytes made visible, for messages.
    var replacingNUL: String { split(separator: "\u{0}", omittingEmptySubsequences: false).joined(separator: "\\0") }
}
