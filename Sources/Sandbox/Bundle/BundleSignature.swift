import Foundation
import SandboxCore

/// The Ed25519 signature of a bundle's manifest, stored as `_CodeSignature/signature`:
///
///     {"algorithm":"ed25519","key":"<base64 public key>","signature":"<base64 signature>"}
///
/// The signed message is the domain tag `sandbox-bundle-signature/1` and a newline, followed by
/// the exact bytes of `_CodeSignature/manifest.json`; the tag keeps a bundle signature from being
/// mistaken for a signature of anything else made with the same key.
public struct BundleSignature: Sendable, Hashable {
    static let domainTag = Array("sandbox-bundle-signature/1\n".utf8)

    /// The signer.
    public var key: SigningPublicKey
    /// The 64 signature bytes.
    public var signature: [UInt8]

    /// Signs `manifest` with `key`.
    init(signing manifest: [UInt8], with key: SigningKey) throws(SandboxError) {
        self.key = key.publicKey
        self.signature = try key.signature(for: Self.domainTag + manifest)
    }

    /// Whether the signature is the key's signature of `manifest`.
    func isValid(for manifest: [UInt8]) -> Bool {
        key.isValidSignature(signature, for: Self.domainTag + manifest)
    }

    /// The stored bytes.
    var storedBytes: [UInt8] {
        let key = Data(key.rawRepresentation).base64EncodedString()
        let signature = Data(signature).base64EncodedString()
        return Array("{\"algorithm\":\"ed25519\",\"key\":\"\(key)\",\"signature\":\"\(signature)\"}\n".utf8)
    }

    private struct Stored: Decodable {
        var algorithm: String
        var key: String
        var signature: String
    }

    /// Reads a signature from its stored bytes.
    ///
    /// - Throws: ``SandboxCore/SandboxError/Code/signatureInvalid`` when they are not a signature
    ///   file.
    init(storedBytes bytes: [UInt8], source: String) throws(SandboxError) {
        let remedy = "Sign the bundle again with a signing key."
        let stored: Stored
        do {
            stored = try JSONDecoder().decode(Stored.self, from: Data(bytes))
        } catch {
            throw SandboxError(
                .signatureInvalid, "'\(source)' is not a bundle signature (\(error)). \(remedy)", path: source)
        }
        guard stored.algorithm == "ed25519", let key = Data(base64Encoded: stored.key),
            let signature = Data(base64Encoded: stored.signature), signature.count == 64
        else {
            throw SandboxError(
                .signatureInvalid, "'\(source)' is not an Ed25519 bundle signature. \(remedy)", path: source)
        }
        do throws(SandboxError) {
            self.key = try SigningPublicKey(rawRepresentation: Array(key), source: source)
        } catch {
            throw SandboxError(.signatureInvalid, "'\(source)' names no valid signing key. \(remedy)", path: source)
        }
        self.signature = Array(signature)
    }
}
