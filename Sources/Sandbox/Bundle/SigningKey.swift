import Crypto
import Foundation
import SandboxCore

/// An Ed25519 private key that signs app bundles (`sandbox keygen`).
///
/// Its file is one line, `sandbox-ed25519-private-key <base64 of the 32-byte seed>`, kept 0600 by
/// ``write(toHostPath:)``. The matching ``SigningPublicKey`` is what a device trusts.
public struct SigningKey: Sendable {
    static let fileTag = "sandbox-ed25519-private-key"

    let key: Curve25519.Signing.PrivateKey

    /// A new random key.
    public init() {
        key = Curve25519.Signing.PrivateKey()
    }

    /// Reads a key from the text of its file.
    ///
    /// - Parameters:
    ///   - text: the file's contents: one line, `sandbox-ed25519-private-key` and the base64 of the
    ///     32-byte seed, separated by white space.
    ///   - source: where the text came from, for messages.
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` when the text is not a private
    ///   key file (a public key given by mistake says so).
    public init(fileContents text: String, source: String) throws(SandboxError) {
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, fields[0] == Self.fileTag, let seed = Data(base64Encoded: String(fields[1])),
            seed.count == 32
        else {
            let hint =
                fields.first.map(String.init) == SigningPublicKey.fileTag
                ? " It is a public key: give the private key file, not the .pub." : ""
            throw SandboxError(
                .invalidArgument,
                "'\(source)' is not a sandbox signing key (one line: \(Self.fileTag) BASE64).\(hint) Give the file of a key pair made for signing.",
                path: source)
        }
        do {
            key = try Curve25519.Signing.PrivateKey(rawRepresentation: seed)
        } catch {
            throw SandboxError(
                .invalidArgument,
                "'\(source)' holds no valid Ed25519 key (\(error)). Give the file of a key pair made for signing.",
                path: source)
        }
    }

    /// The text of the key's file.
    public var fileContents: String {
        "\(Self.fileTag) \(key.rawRepresentation.base64EncodedString())\n"
    }

    /// The key others verify with.
    public var publicKey: SigningPublicKey {
        SigningPublicKey(key: key.publicKey)
    }

    /// Signs `message`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/unknown`` if the cryptography library fails (it
    ///   does not for valid keys).
    func signature(for message: [UInt8]) throws(SandboxError) -> [UInt8] {
        do {
            return Array(try key.signature(for: message))
        } catch {
            throw SandboxError(.unknown, "Signing failed: \(error).")
        }
    }
}

/// An Ed25519 public key: the identity of a bundle's signer.
///
/// Its file is one line, `sandbox-ed25519-public-key <base64 of the 32 bytes>`. Its ``keyID`` is
/// the hex SHA-256 of the 32 bytes; a device trusts it as `Device/TrustedKeys/<keyID>.pub`.
public struct SigningPublicKey: Sendable, Hashable, CustomStringConvertible {
    static let fileTag = "sandbox-ed25519-public-key"

    let key: Curve25519.Signing.PublicKey

    init(key: Curve25519.Signing.PublicKey) {
        self.key = key
    }

    /// A key from its 32 raw bytes.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` when the bytes are no Ed25519
    ///   public key.
    public init(rawRepresentation bytes: [UInt8], source: String) throws(SandboxError) {
        do {
            key = try Curve25519.Signing.PublicKey(rawRepresentation: bytes)
        } catch {
            throw SandboxError(
                .invalidArgument, "'\(source)' holds no valid Ed25519 public key (\(error)).", path: source)
        }
    }

    /// Reads a key from the text of its file.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` when the text is not a public
    ///   key file.
    public init(fileContents text: String, source: String) throws(SandboxError) {
        let fields = text.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, fields[0] == Self.fileTag, let bytes = Data(base64Encoded: String(fields[1])),
            bytes.count == 32
        else {
            throw SandboxError(
                .invalidArgument,
                "'\(source)' is not a sandbox public key (one line: \(Self.fileTag) BASE64). A key pair's public half is its file with `.pub` added.",
                path: source)
        }
        try self.init(rawRepresentation: Array(bytes), source: source)
    }

    /// The 32 raw bytes.
    public var rawRepresentation: [UInt8] { Array(key.rawRepresentation) }

    /// The hex SHA-256 of the raw bytes: 64 characters that name the key.
    public var keyID: String { Hex.string(SHA256.hash(data: key.rawRepresentation)) }

    /// The text of the key's file.
    public var fileContents: String {
        "\(Self.fileTag) \(key.rawRepresentation.base64EncodedString())\n"
    }

    /// The first 16 characters of ``keyID``, for people.
    public var description: String { String(keyID.prefix(16)) }

    /// Whether `signature` is this key's signature of `message`.
    func isValidSignature(_ signature: [UInt8], for message: [UInt8]) -> Bool {
        key.isValidSignature(signature, for: message)
    }

    /// Whether the two are the same key: their raw bytes are equal.
    public static func == (lhs: SigningPublicKey, rhs: SigningPublicKey) -> Bool {
        lhs.key.rawRepresentation == rhs.key.rawRepresentation
    }

    /// Hashes the key's raw bytes, as ``==(_:_:)`` compares them.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(key.rawRepresentation)
    }
}
