import Foundation
import Sandbox
import SandboxCore

/// The entity tags the share gives its files (RFC 9110 §8.8.3).
package enum EntityTag {
    /// A strong tag, `"<inode>-<size>-<mtime in ns>"` in lowercase hex with its quotes: it changes
    /// whenever the file is replaced (a new inode), resized or rewritten (a new modification
    /// time), and is the same for every request that sees the same file.
    package static func of(_ attributes: FileAttributes) -> String {
        // Written byte by byte into one string (three `String(_:radix:)` joined by interpolation
        // cost a small GET about 0.7 % of its time).
        String(unsafeUninitializedCapacity: maximumLength) { write(attributes, into: $0) }
    }

    /// ``of(_:)`` appended to `bytes` (a PROPFIND writes one a file, with no string between).
    package static func append(_ attributes: FileAttributes, to bytes: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maximumLength) { buffer in
            bytes.append(contentsOf: buffer[0..<write(attributes, into: buffer)])
        }
    }

    /// Two quotes, three 64-bit numbers in hex and two dashes.
    private static let maximumLength = 2 + 3 * 16 + 2

    /// Writes the tag into `buffer` (``maximumLength`` bytes).
    ///
    /// - Returns: its length.
    private static func write(_ attributes: FileAttributes, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        let mtime = attributes.modificationDate.roundedNanosecondsSince1970
        var end = 0
        func put(_ byte: UInt8) {
            buffer[end] = byte
            end += 1
        }
        func hex(_ value: UInt64) { Hex.forEachDigit(of: value, put) }
        put(0x22)
        hex(attributes.inode)
        put(0x2D)
        hex(UInt64(bitPattern: attributes.size))
        put(0x2D)
        hex(UInt64(bitPattern: mtime))
        put(0x22)
        return end
    }
}
