/// How a file's new contents are made visible.
public struct WriteOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Write into an unnamed file (`O_TMPFILE`) and link it into place only when complete, so
    /// readers see the old contents or the new ones, never a mix. The default.
    public static let atomic = WriteOptions(rawValue: 1 << 0)
    /// `fsync` the file before it is published and its directory after, so the new contents survive
    /// a power cut once the call returns.
    public static let durable = WriteOptions(rawValue: 1 << 1)
    /// Fail with ``SandboxError/Code/alreadyExists`` rather than replace an existing item.
    public static let withoutOverwriting = WriteOptions(rawValue: 1 << 2)
}
