/// The property-list formats the store reads and writes.
///
/// OpenStep (the old ASCII format) is not offered: Foundation on Linux cannot write it and its
/// `PropertyListSerialization` traps when asked to.
public enum PropertyListFormat: String, Sendable, Hashable, Codable, CaseIterable {
    /// `bplist00`: compact, exact (dates keep sub-second precision) and byte-stable. The default.
    case binary
    /// XML 1.0: readable, but dates are written in whole seconds, as on Apple platforms.
    case xml

    /// The format of `bytes`, told by its first bytes: `bplist00` for binary; `<?xml` or `<plist`
    /// (after an optional byte-order mark and white space) for XML; `nil` for anything else.
    public static func detect(_ bytes: some Collection<UInt8>) -> PropertyListFormat? {
        if bytes.starts(with: Array("bplist00".utf8)) { return .binary }
        var rest = bytes[...]
        if rest.starts(with: [0xEF, 0xBB, 0xBF]) { rest = rest.dropFirst(3) }
        rest = rest.drop { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        if rest.starts(with: Array("<?xml".utf8)) || rest.starts(with: Array("<plist".utf8))
            || rest.starts(with: Array("<!DOCTYPE plist".utf8))
        {
            return .xml
        }
        return nil
    }
}
