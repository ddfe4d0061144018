import Crypto
import SandboxCore

/// How one dead property is stored: an extended attribute named from a digest of the property's
/// name, whose value holds the name itself and the value fragment.
///
/// Layout: `SDP` and version byte 1, the namespace and the local name each as a 32-bit big-endian
/// length and UTF-8 bytes, then the value fragment's UTF-8 bytes to the end.
package struct DeadPropertyRecord: Sendable, Equatable {
    /// The prefix of every attribute the store writes (`user.`, the namespace an unprivileged
    /// process may write).
    package static let attributePrefix = "user.sandbox.dav."

    package var name: PropertyName
    /// The value: a self-contained XML fragment.
    package var value: String

    package init(name: PropertyName, value: String) {
        self.name = name
        self.value = value
    }

    private static let magic: [UInt8] = [0x53, 0x44, 0x50, 0x01]

    /// The attribute holding `name`: the prefix and the first 16 bytes of the SHA-256 of its Clark
    /// notation in hex (49 bytes in all, far below the 255 of Linux).
    package static func attributeName(of name: PropertyName) -> String {
        let digest = SHA256.hash(data: Array(name.description.utf8))
        return attributePrefix + Hex.string(digest.prefix(16))
    }

    /// The attribute's value.
    package var encoded: [UInt8] {
        var bytes = Self.magic
        for part in [name.namespace, name.name] {
            let utf8 = Array(part.utf8)
            withUnsafeBytes(of: UInt32(utf8.count).bigEndian) { bytes += $0 }
            bytes += utf8
        }
        return bytes + Array(value.utf8)
    }

    /// The record in `bytes`, read from the attribute `attribute`, or `nil` when the bytes are not
    /// one this store wrote for that attribute: wrong magic, lengths past the end, text that is
    /// not UTF-8, an empty local name, or a name whose digest is not the attribute's.
    package init?(decoding bytes: [UInt8], attribute: String) {
        guard bytes.starts(with: Self.magic) else { return nil }
        var offset = Self.magic.count
        var parts: [String] = []
        for _ in 0..<2 {
            guard bytes.count - offset >= 4 else { return nil }
            let length = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            offset += 4
            guard bytes.count - offset >= length,
                let text = String(validating: bytes[offset..<offset + length], as: UTF8.self)
            else { return nil }
            parts.append(text)
            offset += length
        }
        guard !parts[1].isEmpty, let value = String(validating: bytes[offset...], as: UTF8.self) else { return nil }
        let name = PropertyName(parts[0], parts[1])
        guard Self.attributeName(of: name) == attribute else { return nil }
        self.init(name: name, value: value)
    }
}
