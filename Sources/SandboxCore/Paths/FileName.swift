import Glibc

/// One name inside a directory, as the bytes the file system stores.
///
/// Linux names are bytes, not text: anything but `/` and NUL, at most 255 of them. A name read
/// from disk is kept byte for byte, so that it reaches every `*at` call exactly as it was listed:
/// a name that is not valid UTF-8 is still listed, measured and removed, never skipped. Two names
/// are equal when their bytes are: the NFC and NFD spellings of "é" are two different names, as
/// they are two different files on ext4.
///
/// Names made from a `String` (user input) are validated by ``init(_:)``; Swift strings are always
/// valid UTF-8, so such names are too. Display a name with ``description``, which escapes what is
/// not printable text.
public struct FileName: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The bytes followed by a NUL, ready for C calls.
    package let cString: [CChar]

    /// Longest name accepted, in bytes (Linux `NAME_MAX`).
    public static let maximumLength = 255

    /// Validates a name given as text, such as `"a.txt"`.
    ///
    /// - Throws: ``SandboxError`` with ``SandboxError/Code/invalidPath`` for an empty name, `.`,
    ///   `..` or a name containing `/`; ``SandboxError/Code/escapesContainer`` for a NUL byte;
    ///   ``SandboxError/Code/nameTooLong`` past 255 bytes.
    public init(_ name: String) throws(SandboxError) {
        guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(UInt8(ascii: "/")) else {
            throw .rule(
                .invalidPath, "'\(name)' is not a valid name: a name is non-empty, has no '/', and is not '.' or '..'.",
                path: name)
        }
        guard !name.utf8.contains(0) else {
            throw .rule(
                .escapesContainer, "The name contains a NUL byte; it is refused as an attempt to escape the container.",
                path: name.replacingNUL)
        }
        guard name.utf8.count <= Self.maximumLength else {
            throw .rule(
                .nameTooLong,
                "The name '\(name.prefix(32))…' is \(name.utf8.count) bytes long; Linux allows \(Self.maximumLength).",
                path: String(name.prefix(64)))
        }
        self.init(uncheckedBytes: name.utf8)
    }

    /// A name whose bytes are known to be a valid component: read from a directory, or split
    /// from a path that was validated as a whole (`..` included).
    package init(uncheckedBytes bytes: some Sequence<UInt8>) {
        var storage = bytes.map { CChar(bitPattern: $0) }
        storage.append(0)
        cString = storage
    }

    /// A name listed by `getdents64`: the NUL-terminated bytes at `name`, copied.
    package init(listed name: UnsafePointer<CChar>) {
        cString = Array(UnsafeBufferPointer(start: name, count: strlen(name) + 1))
    }

    /// `..`, the only parent reference a ``ContainerPath`` keeps.
    package static let parentReference = FileName(uncheckedBytes: "..".utf8)

    /// Whether this is `..`.
    package var isParentReference: Bool { cString == Self.parentReference.cString }

    /// The bytes, without the terminating NUL.
    public var bytes: [UInt8] { cString.dropLast().map { UInt8(bitPattern: $0) } }

    /// The length in bytes.
    public var count: Int { cString.count - 1 }

    /// Orders by bytes (for UTF-8 names, by Unicode scalar values).
    public static func < (lhs: FileName, rhs: FileName) -> Bool {
        lhs.cString.lazy.map { UInt8(bitPattern: $0) }.lexicographicallyPrecedes(
            rhs.cString.lazy.map { UInt8(bitPattern: $0) })
    }
}
