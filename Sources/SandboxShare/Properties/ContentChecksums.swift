import Crypto
import NIOCore
import Sandbox

/// The SHA-1 and MD5 of a file's contents: what ownCloud and Nextcloud clients compare to skip
/// unchanged files, and what rclone's `webdav` backend (`vendor=owncloud`: both, `nextcloud`:
/// SHA-1) asks for in a PROPFIND's `oc:checksums` and reads back after each upload.
///
/// They are never computed on a request's path: an upload hashes its body as it streams in
/// (``Hasher``), and a file the app wrote is hashed only when a PROPFIND asks, within a budget
/// (``ChecksumStore``). The entity tag stays the cheap `"<inode>-<size>-<mtime>"` (``EntityTag``).
package struct ContentChecksums: Sendable, Equatable {
    /// ownCloud's `oc:checksums` property, which only a PROPFIND naming it gets (not `allprop`).
    package static let propertyName = PropertyName("http://owncloud.org/ns", "checksums")

    /// The SHA-1 digest, 20 bytes.
    package var sha1: [UInt8]
    /// The MD5 digest, 16 bytes.
    package var md5: [UInt8]

    package init(sha1: [UInt8], md5: [UInt8]) {
        self.sha1 = sha1
        self.md5 = md5
    }

    /// The `OC-Checksum` of a GET or HEAD: `SHA1:<hex>`, the one type ownCloud's clients read there.
    package var headerValue: String { "SHA1:" + Hex.string(sha1) }

    /// The text of the `oc:checksum` element: `SHA1:<hex> MD5:<hex>` (ownCloud's form, which rclone
    /// splits on spaces).
    package var propertyText: String { "SHA1:\(Hex.string(sha1)) MD5:\(Hex.string(md5))" }

    /// The value of ``propertyName``: one `oc:checksum` element, declaring its own namespace.
    package var propertyValue: String {
        "<checksum xmlns=\"http://owncloud.org/ns\">\(propertyText)</checksum>"
    }

    /// Both digests of one stream of bytes, fed as they arrive (an upload's body).
    package struct Hasher: Sendable {
        private var sha1 = Insecure.SHA1()
        private var md5 = Insecure.MD5()

        package init() {}

        package mutating func update(_ bytes: UnsafeRawBufferPointer) {
            sha1.update(bufferPointer: bytes)
            md5.update(bufferPointer: bytes)
        }

        package mutating func update(_ buffer: ByteBuffer) {
            buffer.withUnsafeReadableBytes { update($0) }
        }

        package func finalize() -> ContentChecksums {
            ContentChecksums(sha1: Array(sha1.finalize()), md5: Array(md5.finalize()))
        }
    }
}
