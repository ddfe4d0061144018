import Crypto
import Foundation
import Glibc
import Sandbox
import SwiftASN1
import X509

/// The device's own certificate for `sandbox share --tls`: an ECDSA P-256 key and a self-signed
/// certificate, made on first use and kept in the home's `Device/Share/` (a `0700` folder of
/// `0600` files, written atomically; a confined app never sees `Device/`).
///
/// The key is made once and kept, so the public-key pin (``ShareTLSIdentity/publicKeyPin``) a
/// client was given stays right. The certificate is issued again, with the same key, when fewer
/// than 30 days of its year remain or when it does not name the address the share is bound to
/// (its subject alternative names: `localhost`, `127.0.0.1`, `::1`, the host name, `<host
/// name>.local` and the bound address, or every interface's address for a wildcard).
public enum DeviceCertificate {
    static let keyPath = ContainerPath(constant: "Device/Share/tls-key.pem")
    static let certificatePath = ContainerPath(constant: "Device/Share/tls-certificate.pem")
    /// How long a new certificate is valid: a year (Apple's clients refuse more than 398 days).
    static let lifetime: TimeInterval = 365 * 86_400
    /// A certificate with less left than this is issued again.
    static let renewalMargin: TimeInterval = 30 * 86_400

    /// The device's identity for serving `configuration` over HTTPS, made or renewed as needed.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/corrupt`` when the kept key
    ///   does not read (it is left as it is: remove it to have a new key made, and give clients the
    ///   new pin), and the core's codes writing `Device/Share/`.
    public static func identity(
        in home: SandboxHome, for configuration: ShareConfiguration, now: Date = Date()
    ) throws(SandboxError) -> ShareTLSIdentity {
        let names = configuration.certificateNames(
            localAddresses: ShareServer.interfaceAddresses(), hostName: ShareServer.hostName())
        return try identity(in: home, names: names, now: now)
    }

    /// The device's identity with a certificate that names at least `names`.
    static func identity(in home: SandboxHome, names: Set<String>, now: Date) throws(SandboxError) -> ShareTLSIdentity {
        let root = home.root
        try root.createDirectory(at: keyPath.parent, withIntermediateDirectories: true)
        let keyPEM = try key(in: root)
        let key: P256.Signing.PrivateKey
        do {
            key = try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
        } catch {
            throw SandboxError(
                .corrupt,
                "The share's device key '\(root.displayPath(of: keyPath))' does not read as a P-256 key (\(error)). "
                    + "It was left as it was: remove it to have a new key made, then give clients the new pin.",
                path: keyPath.description)
        }
        let wanted = Set(names.compactMap(Self.generalName))
        if let kept = try keptIdentity(in: root, keyPEM: keyPEM, covering: wanted, now: now) { return kept }
        let certificatePEM = try issue(for: key, names: wanted, now: now)
        try root.writeContents(Array(certificatePEM.utf8), to: certificatePath, options: [.atomic, .durable])
        return try ShareTLSIdentity(
            certificatePEM: certificatePEM, keyPEM: keyPEM, now: now,
            certificateSource: root.displayPath(of: certificatePath), keySource: root.displayPath(of: keyPath))
    }

    /// The kept key's PEM text, made now when there is none; of two processes making it at once,
    /// the one that loses reads the winner's.
    private static func key(in root: ConfinedRoot) throws(SandboxError) -> String {
        for _ in 0..<2 {
            do {
                return String(decoding: try root.readContents(of: keyPath, maximumSize: 4096), as: UTF8.self)
            } catch  where error.code == .notFound {
                let pem = P256.Signing.PrivateKey().pemRepresentation
                do {
                    try root.writeContents(
                        Array(pem.utf8), to: keyPath, options: [.atomic, .durable, .withoutOverwriting])
                    return pem
                } catch  where error.code == .alreadyExists {
                    continue
                }
            }
        }
        throw SandboxError(
            .internalError, "The share's device key '\(root.displayPath(of: keyPath))' appeared and vanished.",
            path: keyPath.description)
    }

    /// The kept certificate, when it is the key's, names every one of `wanted` and has more than
    /// the renewal margin left; `nil` when it must be issued again (missing, damaged, or not so).
    private static func keptIdentity(
        in root: ConfinedRoot, keyPEM: String, covering wanted: Set<GeneralName>, now: Date
    ) throws(SandboxError) -> ShareTLSIdentity? {
        let bytes: [UInt8]
        do {
            bytes = try root.readContents(of: certificatePath, maximumSize: 1 << 16)
        } catch  where error.code == .notFound {
            return nil
        }
        let identity: ShareTLSIdentity
        do {
            identity = try ShareTLSIdentity(
                certificatePEM: String(decoding: bytes, as: UTF8.self), keyPEM: keyPEM, now: now,
                certificateSource: certificatePath.description, keySource: keyPath.description)
        } catch  where error.code == .invalidCertificate {
            return nil  // another key's, expired or damaged: made again from the key
        }
        let named: Set<GeneralName>
        do {
            named = Set(try identity.leaf.extensions.subjectAlternativeNames ?? SubjectAlternativeNames())
        } catch {
            return nil  // names that do not parse: made again
        }
        guard wanted.isSubset(of: named), identity.leaf.notValidAfter.timeIntervalSince(now) > renewalMargin else {
            return nil
        }
        return identity
    }

    /// A new self-signed certificate for `key` naming `names`, valid for ``lifetime`` from an hour
    /// ago (a client whose clock is a little behind still accepts it), as PEM text.
    static func issue(
        for key: P256.Signing.PrivateKey, names: Set<GeneralName>, now: Date
    ) throws(SandboxError) -> String {
        let signer = Certificate.PrivateKey(key)
        do {
            let subject = try DistinguishedName {
                OrganizationName("Sandbox")
                CommonName("sandbox share device certificate")
            }
            let sorted = names.sorted { "\($0)" < "\($1)" }
            let extensions = try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames(sorted)
            }
            let certificate = try Certificate(
                version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: signer.publicKey,
                notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(lifetime),
                issuer: subject, subject: subject, extensions: extensions, issuerPrivateKey: signer)
            return try certificate.serializeAsPEM().pemString
        } catch {
            throw SandboxError(.internalError, "The share's device certificate cannot be made: \(error).")
        }
    }

    /// A host name or an IP address (brackets and an IPv6 zone dropped) as a subject alternative
    /// name; `nil` for a wildcard address or an empty name.
    static func generalName(_ name: String) -> GeneralName? {
        var text = name.lowercased()
        if text.hasPrefix("["), text.hasSuffix("]") { text = String(text.dropFirst().dropLast()) }
        if let zone = text.firstIndex(of: "%") { text = String(text[..<zone]) }
        guard !text.isEmpty, text != "0.0.0.0", text != "::" else { return nil }
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            return .ipAddress(ASN1OctetString(contentBytes: withUnsafeBytes(of: &v4) { Array($0)[...] }))
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, text, &v6) == 1 {
            return .ipAddress(ASN1OctetString(contentBytes: withUnsafeBytes(of: &v6) { Array($0)[...] }))
        }
        return .dnsName(text)
    }
}
