import Foundation
import Sandbox

/// The entity tags the share gives its files (RFC 9110 §8.8.3).
package enum EntityTag {
    /// A strong tag, `"<inode>-<size>-<mtime in ns>"` in lowercase hex with its quotes: it changes
    /// whenever the file is replaced (a new inode), resized or rewritten (a new modification
    /// time), and is the same for every request that sees the same file.
    package static func of(_ attributes: FileAttributes) -> String {
        let nanoseconds = (attributes.modificationDate.timeIntervalSince1970 * 1_000_000_000).rounded()
        let mtime = Int64(exactly: nanoseconds) ?? 0
        return "\"\(hex(attributes.inode))-\(hex(UInt64(bitPattern: attributes.size)))-"
            + "\(hex(UInt64(bitPattern: mtime)))\""
    }

    private static func hex(_ value: UInt64) -> String { String(value, radix: 16) }
}
