import Sandbox

/// A shared item's path as a request named it: decoded exactly once, checked, and split into names.
///
/// The only way to make one from a request is ``init(requestPath:)``, which refuses every trick a
/// path can hide: malformed or encoded separators, `.` and `..`, empty names, control characters,
/// invalid or overlong UTF-8. `%252e` decodes once, to the literal name `%2e`, never to `.`.
///
/// Names are bytes as sent: no Unicode normalization is applied, and paths compare and hash by the
/// names' UTF-8 bytes (an NFC and an NFD spelling of one word are different paths, as they are
/// different files on Linux). Equality ignores ``endsWithSlash``: `/a/` and `/a` name one item.
package struct SharePath: Hashable, Sendable, CustomStringConvertible {
    /// The names from the shared folder down; none empty, `.` or `..`, none holding `/`, `\` or a
    /// control character.
    package let names: [String]
    /// Whether the request wrote a trailing `/` (the root always has one).
    package let endsWithSlash: Bool

    /// The shared folder itself, `/`.
    package static let root = SharePath(checkedNames: [], endsWithSlash: true)

    /// Longest path accepted, decoded, in bytes.
    package static let maximumLength = 4096
    /// Longest name accepted, decoded, in bytes (Linux `NAME_MAX`).
    package static let maximumNameLength = 255

    package init(checkedNames names: [String], endsWithSlash: Bool) {
        self.names = names
        self.endsWithSlash = endsWithSlash || names.isEmpty
    }

    /// Decodes and checks the path part of a request target (no query), such as `/a%20b/c.txt`.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` for a path that does not start with `/`, a
    ///   malformed `%` escape, an encoded `/` or `\`, a backslash, a control character (raw or
    ///   encoded, NUL included), a `.` or `..` name, an empty name (`//`), bytes that are not valid
    ///   UTF-8 (overlong forms and surrogates included), a name over 255 bytes or a path over 4096.
    package init(requestPath: some StringProtocol) throws(SandboxError) {
        let raw = String(requestPath)
        guard raw.utf8.first == UInt8(ascii: "/") else {
            throw Self.refusal(raw, "does not start with '/'; send an absolute path")
        }
        // Cheap bound before decoding: an escape is 3 bytes for 1.
        guard raw.utf8.count <= 3 * Self.maximumLength else {
            throw Self.refusal(raw, "is longer than \(Self.maximumLength) bytes; use a shorter path")
        }
        try self.init(decoded: try Self.percentDecoded(raw), raw: raw)
    }

    /// Checks a path that is not percent-encoded, such as `/a b/c.txt` from a JSON body, by the
    /// same rules as ``init(requestPath:)`` (which it shares, minus the decoding).
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` as ``init(requestPath:)``.
    package init(plainPath: String) throws(SandboxError) {
        guard plainPath.utf8.first == UInt8(ascii: "/") else {
            throw Self.refusal(plainPath, "does not start with '/'; send an absolute path")
        }
        try self.init(decoded: Array(plainPath.utf8), raw: plainPath)
    }

    private init(decoded: [UInt8], raw: String) throws(SandboxError) {
        guard decoded.count <= Self.maximumLength else {
            throw Self.refusal(raw, "is longer than \(Self.maximumLength) bytes; use a shorter path")
        }
        var parts = decoded.dropFirst().split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        let endsWithSlash = parts.last?.isEmpty ?? true
        if endsWithSlash { parts.removeLast() }
        var names: [String] = []
        names.reserveCapacity(parts.count)
        for part in parts {
            names.append(try Self.checkedName(part, in: raw))
        }
        self.init(checkedNames: names, endsWithSlash: endsWithSlash)
    }

    /// Whether this is the shared folder itself.
    package var isRoot: Bool { names.isEmpty }

    /// Whether the share hides this item: anything with a name (itself or a parent's) starting
    /// with `.`, the share's own rule, or what the container's policy keeps from file sharing
    /// (``/Sandbox/ContainerPolicy/fileSharing`` refuses reading it: the `Inbox` and all in it). A
    /// hidden item is never listed (PROPFIND, the page, a ZIP); only ``isFinderMetadata`` ones can
    /// be named by a WebDAV request.
    package var isHidden: Bool {
        if names.contains(where: { $0.utf8.first == UInt8(ascii: ".") }) { return true }
        return !ContainerPolicy.fileSharing.allows(.read, at: pathInContainer)
    }

    /// The same item as a path in the container, `Documents/…`: what the container's policy judges.
    package var pathInContainer: ContainerPath {
        Self.documents.appending(contentsOf: containerPath.names)
    }

    private static let documents = ContainerDirectory.documents.path ?? ContainerPath(constant: "Documents")

    /// Whether this is a file macOS keeps beside the documents on a WebDAV volume, in a folder the
    /// share shows: `._name` (AppleDouble: the extended attributes of `name`, which every copy by
    /// Finder or `cp` writes, and fails with error -36 or EPERM when it cannot) or `.DS_Store`
    /// (the folder's view settings). WebDAV clients may create, read, lock, move and delete them
    /// like any file; they are never listed.
    package var isFinderMetadata: Bool {
        guard let name = names.last, !parent.isHidden else { return false }
        let bytes = Array(name.utf8)
        return name == ".DS_Store"
            || (bytes.count > 2 && bytes[0] == UInt8(ascii: ".") && bytes[1] == UInt8(ascii: "_"))
    }

    /// Whether no request reaches this item: hidden and not ``isFinderMetadata`` (the Inbox, the
    /// app's own dot-files and everything beneath them): 404 for every method.
    package var isUnreachable: Bool { isHidden && !isFinderMetadata }

    /// The path as a person reads it: `Documents` for the shared folder itself, `Documents/Album/a.jpg`
    /// beneath it (a bare `/` means nothing to someone who never typed a path).
    package var displayPath: String { isRoot ? "Documents" : "Documents" + description }

    /// The path without its last name; the root's parent is the root.
    package var parent: SharePath {
        SharePath(checkedNames: Array(names.dropLast()), endsWithSlash: true)
    }

    /// The last name, or `nil` for the root.
    package var lastName: String? { names.last }

    /// The path with one more name, such as a name listed from a directory.
    ///
    /// The name must be a single valid component (no `/`, NUL, not `.` or `..`), as every name
    /// the file system lists is; names from a request go through ``init(requestPath:)``.
    package func appending(_ name: String) -> SharePath {
        assert(Self.isValidName(Array(name.utf8)), "'\(name)' is not a single path component")
        var longer: [String] = []
        longer.reserveCapacity(names.count + 1)
        longer += names
        longer.append(name)
        return SharePath(checkedNames: longer, endsWithSlash: false)
    }

    /// Whether `self` lies strictly beneath `other`, comparing names byte by byte.
    package func isDescendant(of other: SharePath) -> Bool {
        names.count > other.names.count
            && zip(names, other.names).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
    }

    /// The same item as a path relative to the container's `Documents` folder; the root is
    /// ``/SandboxCore/ContainerPath/root``.
    ///
    /// Each name is copied from its C string (a valid name holds no NUL), which costs a copy;
    /// the byte-sequence initializer is generic and, called from this module, walks the bytes one
    /// by one through the protocol (a few percent of a small GET).
    package var containerPath: ContainerPath {
        ContainerPath.root.appending(contentsOf: names.map { name in name.withCString { FileName(listed: $0) } })
    }

    /// The decoded path, `/a/b`, for messages and logs; `/` for the root.
    package var description: String { "/" + names.joined(separator: "/") }

    package static func == (lhs: SharePath, rhs: SharePath) -> Bool {
        lhs.names.count == rhs.names.count && zip(lhs.names, rhs.names).allSatisfy { $0.utf8.elementsEqual($1.utf8) }
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(names.count)
        for name in names {
            hasher.combine(name.utf8.count)
            for byte in name.utf8 { hasher.combine(byte) }
        }
    }
}
