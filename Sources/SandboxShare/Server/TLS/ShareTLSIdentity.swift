import Crypto
import Foundation
import NIOSSL
import Sandbox
import SwiftASN1
import X509

/// What a share serves HTTPS with: a certificate (with the chain up to its issuer, if any) and its
/// private key, checked to belong together and to be valid now.
///
/// Made from the device's own certificate (``DeviceCertificate``) or from PEM files the user
/// brings (``init(certificateFile:keyFile:now:)``). Clients that do not trust the issuer check it
/// with the ``fingerprint`` or the ``publicKeyPin``.
public struct ShareTLSIdentity: Sendable {
    /// The server's certificate, first, then the rest of the chain as given.
    public let certificates: [Certificate]
    /// The certificate's private key.
    let privateKey: Certificate.PrivateKey
    /// The same chain and key as NIOSSL takes them.
    let sslCertificates: [NIOSSLCertificate]
    let sslKey: NIOSSLPrivateKey

    /// The server's certificate.
    public var leaf: Certificate { certificates[0] }

    /// The SHA-256 of the server's certificate (DER) in the usual `AA:BB:…` form: what a browser's
    /// certificate viewer and `openssl x509 -fingerprint -sha256` show.
    public var fingerprint: String {
        Self.colonHex(SHA256.hash(data: leafDER))
    }

    /// The SHA-256 of the certificate's public key (its DER SubjectPublicKeyInfo), in base64: what
    /// `curl --pinnedpubkey sha256//…` and Chromium's `--ignore-certificate-errors-spki-list` take.
    /// The device certificate keeps its key when it is renewed, so this pin outlives a renewal.
    public var publicKeyPin: String {
        Data(SHA256.hash(data: spki)).base64EncodedString()
    }

    /// The public key's DER SubjectPublicKeyInfo.
    private let spki: [UInt8]
    /// The server's certificate, DER.
    private let leafDER: [UInt8]

    /// An identity from PEM text: one or more certificates (the server's first) and a private key
    /// (PKCS #8, SEC 1 or PKCS #1), checked together.
    ///
    /// - Parameters:
    ///   - certificatePEM: the certificate chain, as PEM text.
    ///   - keyPEM: the private key, as PEM text (not encrypted).
    ///   - now: the moment the certificate must be valid at.
    ///   - certificateSource: how the certificate is named in errors (a path).
    ///   - keySource: how the key is named in errors (a path).
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/invalidCertificate`` when the
    ///   text holds no certificate or no key, when the key is not the certificate's, or when the
    ///   certificate is expired or not yet valid.
    public init(
        certificatePEM: String, keyPEM: String, now: Date = Date(), certificateSource: String, keySource: String
    ) throws(SandboxError) {
        let certificates = try Self.parseCertificates(certificatePEM, source: certificateSource)
        let key = try Self.parseKey(keyPEM, source: keySource)
        let leaf = certificates[0]
        guard key.publicKey == leaf.publicKey else {
            throw SandboxError(
                .invalidCertificate,
                "The key '\(keySource)' is not the key of the certificate '\(certificateSource)' (its public key differs): "
                    + "give the key the certificate was issued for.",
                path: keySource)
        }
        guard leaf.notValidAfter > now else {
            throw SandboxError(
                .invalidCertificate,
                "The certificate '\(certificateSource)' expired on \(leaf.notValidAfter.formatted(.iso8601)): "
                    + "renew it, then share again.",
                path: certificateSource)
        }
        guard leaf.notValidBefore <= now else {
            throw SandboxError(
                .invalidCertificate,
                "The certificate '\(certificateSource)' is valid only from \(leaf.notValidBefore.formatted(.iso8601)): "
                    + "check this machine's clock, or give a certificate valid now.",
                path: certificateSource)
        }
        do {
            let ders = try certificates.map(Self.der)
            leafDER = ders[0]
            sslCertificates = try ders.map { try NIOSSLCertificate(bytes: $0, format: .der) }
            sslKey = try NIOSSLPrivateKey(bytes: Array(try key.serializeAsPEM().pemString.utf8), format: .pem)
            spki = try sslCertificates[0].extractPublicKey().toSPKIBytes()
        } catch {
            throw SandboxError(
                .invalidCertificate,
                "The certificate '\(certificateSource)' or its key '\(keySource)' cannot be used for TLS: \(error).",
                path: certificateSource)
        }
        self.certificates = certificates
        privateKey = key
    }

    /// The server side of TLS with this identity: TLS 1.2 or later, HTTP/1.1 offered by ALPN.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/invalidCertificate`` when
    ///   BoringSSL refuses the pair.
    func makeContext() throws(SandboxError) -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: sslCertificates.map { .certificate($0) }, privateKey: .privateKey(sslKey))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["http/1.1"]
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw SandboxError(.invalidCertificate, "The certificate and key cannot be used for TLS: \(error).")
        }
    }

    private static func parseCertificates(_ text: String, source: String) throws(SandboxError) -> [Certificate] {
        let certificates: [Certificate]
        do {
            certificates = try PEMDocument.parseMultiple(pemString: text)
                .filter { $0.discriminator == "CERTIFICATE" }
                .map { try Certificate(pemDocument: $0) }
        } catch {
            throw SandboxError(
                .invalidCertificate,
                "'\(source)' is not a PEM certificate (\(error)): give the certificate file, "
                    + "'-----BEGIN CERTIFICATE-----' first.",
                path: source)
        }
        guard !certificates.isEmpty else {
            throw SandboxError(
                .invalidCertificate,
                "'\(source)' holds no certificate: give the certificate file, '-----BEGIN CERTIFICATE-----' first.",
                path: source)
        }
        return certificates
    }

    private static func parseKey(_ text: String, source: String) throws(SandboxError) -> Certificate.PrivateKey {
        do {
            guard
                let document = try PEMDocument.parseMultiple(pemString: text).first(where: {
                    $0.discriminator.hasSuffix("PRIVATE KEY")
                })
            else {
                throw SandboxError(.invalidCertificate, "no private key")
            }
            return try Certificate.PrivateKey(pemDocument: document)
        } catch {
            throw SandboxError(
                .invalidCertificate,
                "'\(source)' holds no private key that can be read (\(error)): give the key file, unencrypted, "
                    + "'-----BEGIN PRIVATE KEY-----' (or 'EC PRIVATE KEY', 'RSA PRIVATE KEY') first.",
                path: source)
        }
    }

    /// The DER bytes of `certificate`.
    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }

    /// `bytes` as upper-case hex pairs joined by `:`.
    static func colonHex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { Hex.string([$0], uppercase: true) }.joined(separator: ":")
    }
}
