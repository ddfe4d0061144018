import HTTPTypes
import Sandbox

/// The checksums a client sends with a PUT in ownCloud's `OC-Checksum` (`SHA1:<hex>`, `MD5:<hex>`,
/// several separated by spaces; rclone with `vendor=owncloud` or `nextcloud` sends SHA-1): the
/// upload is verified against them before it is published, so a body damaged on the way is
/// refused and the file it would have replaced stays as it was.
///
/// Types the share does not compute (`ADLER32:`, …) are ignored, as ownCloud's clients expect of
/// a server that does not know them; a SHA-1 or MD5 that is not a digest is refused before any of
/// the body is stored.
struct RequestedChecksum: Sendable, Equatable {
    /// The SHA-1 the client gave, if any.
    var sha1: [UInt8]?
    /// The MD5 the client gave, if any.
    var md5: [UInt8]?

    /// The checksums of the PUT's `OC-Checksum` fields, or `nil` when it names none the share computes.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` (400) for a `SHA1:` or `MD5:`
    ///   whose value is not 40 or 32 hexadecimal digits, or for the same type given twice.
    static func requested(by fields: HTTPFields, path: SharePath) throws(SandboxError) -> RequestedChecksum? {
        var result = RequestedChecksum()
        for value in fields[values: .ocChecksum] {
            for entry in value.split(whereSeparator: { $0 == " " || $0 == "," }) {
                guard let colon = entry.firstIndex(of: ":") else { continue }
                let type = entry[..<colon].uppercased()
                let digits = entry[entry.index(after: colon)...]
                let length: Int
                switch type {
                case "SHA1": length = 20
                case "MD5": length = 16
                default: continue
                }
                guard digits.utf8.count == 2 * length, let digest = Hex.bytes(digits.utf8) else {
                    throw SandboxError(
                        .malformedRequest,
                        "OC-Checksum '\(entry.prefix(80))' is not a \(type) digest: send \(2 * length) hexadecimal "
                            + "digits; nothing was stored.",
                        path: path.description)
                }
                let taken = type == "SHA1" ? result.sha1 : result.md5
                guard taken == nil || taken == digest else {
                    throw SandboxError(
                        .malformedRequest, "OC-Checksum gives two different \(type) digests; nothing was stored.",
                        path: path.description)
                }
                if type == "SHA1" { result.sha1 = digest } else { result.md5 = digest }
            }
        }
        return result.sha1 == nil && result.md5 == nil ? nil : result
    }

    /// Checks the body's `checksums` against the client's.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/malformedRequest`` (400, as Nextcloud answers) when
    ///   one differs: the body is not what the client sent.
    func verify(_ checksums: ContentChecksums, path: SharePath) throws(SandboxError) {
        for (type, expected, actual) in [("SHA1", sha1, checksums.sha1), ("MD5", md5, checksums.md5)] {
            guard let expected, expected != actual else { continue }
            throw SandboxError(
                .malformedRequest,
                "The upload of '\(path)' does not match its OC-Checksum: \(type) \(Hex.string(expected)) was sent, "
                    + "the body received is \(Hex.string(actual)); nothing was stored, send it again.",
                path: path.description)
        }
    }
}
