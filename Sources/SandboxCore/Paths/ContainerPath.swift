/// A path inside a container, relative to its root.
///
/// The only way to make one is validation (``init(_:)``), which refuses what can be refused without
/// the file system: absolute paths, `..` that climbs above the root, NUL bytes, empty paths and names
/// or paths longer than Linux allows. Lexical checks are necessary, never sufficient: symlinks can
/// still point out, so every operation resolves a `ContainerPath` beneath the container's directory
/// descriptor with the kernel's help (see ``ConfinedRoot``).
///
/// `.` components are dropped; `..` components are kept, so that the kernel resolves them
/// physically (`a/../f` where `a` is a symlink to `b/c` names `b/f`, as it would for `open(2)`).
public struct ContainerPath: Hashable, Sendable, CustomStringConvertible, Comparable {
    /// The components, none empty, none `.`, none containing `/` or NUL.
    public let components: [String]
    /// Whether the path was written with a trailing `/`, which requires a directory.
    public let requiresDirectory: Bool

    /// The container's root itself.
    public static let root = ContainerPath(checkedComponents: [], requiresDirectory: true)

    /// Longest path accepted, in bytes (Linux `PATH_MAX` less the terminating NUL).
    public static let maximumLength = 4095
    /// Longest component accepted, in bytes (Linux `NAME_MAX`).
    public static let maximumComponentLength = 255

    /// Validates a path written relative to the container's root, such as `Documents/a.txt`.
    ///
    /// - Throws: ``SandboxError`` with ``SandboxError/Code/escapesContainer`` for an absolute path,
    ///   a NUL byte, or `..` that climbs above the root; ``SandboxError/Code/invalidPath`` for an
    ///   empty path; ``SandboxError/Code/nameTooLong`` past the Linux limits.
    public init(_ string: String) throws(SandboxError) {
        guard !string.isEmpty else {
            throw .rule(.invalidPath, "The path is empty. Give a path relative to the container's home, such as 'Documents/a.txt', or '.' for the home itself.", path: string)
        }
        guard !string.utf8.contains(0) else {
            throw .rule(.escapesContainer, "The path contains a NUL byte, which would truncate it; it is refused as an attempt to escape the container.", path: string.replacingNUL)
        }
        guard string.utf8.first != UInt8(ascii: "/") else {
            throw .rule(.escapesContainer, SandboxError.escapeMessage(string), path: string)
        }
        guard string.utf8.count <= Self.maximumLength else {
            throw .rule(.nameTooLong, "The path is \(string.utf8.count) bytes long; Linux allows \(Self.maximumLength).", path: String(string.prefix(64)) + "…")
        }
        var components: [String] = []
        var depth = 0
        for part in string.split(separator: "/", omittingEmptySubsequences: true) {
            guard part.utf8.count <= Self.maximumComponentLength else {
                throw .rule(.nameTooLong, "The name '\(part.prefix(32))…' in '\(string.prefix(64))' is \(part.utf8.count) bytes long; Linux allows \(Self.maximumComponentLength).", path: String(string.prefix(64)))
            }
            switch part {
            case ".":
                continue
            case "..":
                depth -= 1
                guard depth >= 0 else { throw .rule(.escapesContainer, SandboxError.escapeMessage(string), path: string) }
            default:
                depth += 1
            }
            components.append(String(part))
        }
        self.init(checkedComponents: components, requiresDirectory: string.utf8.last == UInt8(ascii: "/"))
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

    private init(checkedComponents: [String], requiresDirectory: Bool) {
        self.components = checkedComponents
        self.requiresDirectory = requiresDirectory
    }

    /// Validates a single name (no `/`, not `.` or `..`) for use as the last component.
    ///
    /// - Throws: ``SandboxError/Code/invalidPath`` or ``SandboxError/Code/escapesContainer``.
    public static func validateName(_ name: String) throws(SandboxError) -> String {
        guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(UInt8(ascii: "/")) else {
            throw .rule(.invalidPath, "'\(name)' is not a valid name: a name is non-empty, has no '/', and is not '.' or '..'.", path: name)
        }
        guard !name.utf8.contains(0) else {
            throw .rule(.escapesContainer, "The name contains a NUL byte; it is refused as an attempt to escape the container.", path: name.replacingNUL)
        }
        guard name.utf8.count <= maximumComponentLength else {
            throw .rule(.nameTooLong, "The name '\(name.prefix(32))…' is \(name.utf8.count) bytes long; Linux allows \(maximumComponentLength).", path: String(name.prefix(64)))
        }
        return name
    }

    /// The path with one more name appended.
    ///
    /// - Throws: as ``validateName(_:)``.
    public func appending(_ name: String) throws(SandboxError) -> ContainerPath {
        ContainerPath(checkedComponents: components + [try Self.validateName(name)], requiresDirectory: false)
    }

    /// Appends a name read from the file system (already a valid single component).
    package func appendingTrusted(_ name: String) -> ContainerPath {
        ContainerPath(checkedComponents: components + [name], requiresDirectory: false)
    }

    /// The path without its last component; the root's parent is the root.
    public var parent: ContainerPath {
        ContainerPath(checkedComponents: Array(components.dropLast()), requiresDirectory: true)
    }

    /// The last component, or `nil` for the root.
    public var lastComponent: String? { components.last }

    /// Whether this is the container's root.
    public var isRoot: Bool { components.isEmpty }

    /// The path as written, `.` for the root.
    public var description: String { components.isEmpty ? "." : components.joined(separator: "/") }

    /// Whether `self` lies at or beneath `other`, comparing components lexically.
    public func isDescendant(of other: ContainerPath) -> Bool {
        components.count >= other.components.count && Array(components.prefix(other.components.count)) == other.components
    }

    /// Paths are equal when their components are: `a/` and `a` name the same item.
    public static func == (lhs: ContainerPath, rhs: ContainerPath) -> Bool {
        lhs.components == rhs.components
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(components)
    }

    public static func < (lhs: ContainerPath, rhs: ContainerPath) -> Bool {
        lhs.components.lexicographicallyPrecedes(rhs.components)
    }
}

extension String {
    /// The string with NUL bytes made visible, for messages.
    var replacingNUL: String { split(separator: "\u{0}", omittingEmptySubsequences: false).joined(separator: "\\0") }
}
