import Foundation

/// The one-time secret of a pairing link, `/.sandbox/pair/<token>`: 32 random bytes (256 bits,
/// from the system's cryptographic generator, `getrandom`) in base64url without padding, 43
/// characters. `sandbox share` makes one each time it starts, prints it as a link and a QR code, and
/// the share lets it log in one browser, once, within ``lifetime`` (the share keeps only its hash).
public struct PairingToken: Sendable, Equatable {
    /// How long after the share starts the link works.
    public static let lifetime: Duration = .seconds(600)
    /// The characters of a token.
    static let length = 43
    /// Where pairing links are.
    static let prefix = "/.sandbox/pair/"

    /// The token, in base64url.
    public let value: String

    /// A new random token.
    public static func generate() -> PairingToken {
        var generator = SystemRandomNumberGenerator()
        var bytes: [UInt8] = []
        for _ in 0..<4 { withUnsafeBytes(of: (generator.next() as UInt64).littleEndian) { bytes += $0 } }
        let base64 = Data(bytes).base64EncodedString()
        let url = base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
        return PairingToken(value: String(url.prefix { $0 != "=" }))
    }

    /// The link's path on the share, `/.sandbox/pair/<token>`.
    public var path: String { Self.prefix + value }

    /// Whether `text` has a token's form: ``length`` characters of base64url.
    static func isWellFormed(_ text: Substring) -> Bool {
        text.utf8.count == length && text.utf8.allSatisfy(isBase64URL)
    }

    /// `path` with a pairing token cut out (`/.sandbox/pair/…`): what the access log writes.
    static func redacted(_ path: String) -> String {
        path.hasPrefix(prefix) ? prefix + "…" : path
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }
}
