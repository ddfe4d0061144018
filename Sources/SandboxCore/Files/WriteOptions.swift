/// How a file's new contents are made visible.
public struct WriteOptions: OptionSet, Sendable, Hashable {
    /// The options as bits; use the named options rather than these values, which may change.
    public let rawValue: UInt8
    /// The options whose bits are set in `rawValue`.
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Write into an unnamed file (`O_TMPFILE`, or a hidden temporary where the file system lacks
    /// it) and put it in place only when complete, so readers, and a process killed at any moment,
    /// see the old contents or the new ones, never a mix. A replaced file's owner and group (as far
    /// as the writer may set them), mode and `user.` extended attributes are kept. The default.
    ///
    /// Without it, the file is truncated and written in place.
    public static let atomic = WriteOptions(rawValue: 1 << 0)
    /// `fsync` the file before it is published and its directory after, so the new contents survive
    /// a power cut once the call returns; with or without ``atomic``.
    public static let durable = WriteOptions(rawValue: 1 << 1)
    /// Fail with ``SandboxError/Code/alreadyExists`` rather than replace an existing item.
    public static let withoutOverwriting = WriteOptions(rawValue: 1 << 2)
}
