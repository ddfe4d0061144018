import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate authority made in a test, and the server certificates it issues: what a user
/// brings to `sandbox share --tls-cert … --tls-key …` from their own CA.
struct TestCertificateAuthority {
    let key = P256.Signing.PrivateKey()
    let certificate: Certificate
    let name: DistinguishedName

    init(now: Date = Date()) throws {
        name = try DistinguishedName { CommonName("Sandbox test CA \(UUID().uuidString.prefix(8))") }
        let signer = Certificate.PrivateKey(key)
        certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: signer.publicKey,
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(30 * 86_400),
            issuer: name, subject: name,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
            }, issuerPrivateKey: signer)
    }

    /// The CA's certificate as PEM (what `curl --cacert` and `rclone --ca-cert` take).
    var pem: String {
        get throws { try certificate.serializeAsPEM().pemString }
    }

    /// A server certificate for `localhost` and `127.0.0.1` valid over `validity`, and its key, as
    /// PEM texts; `chained` appends the CA's certificate after the server's.
    func issue(
        validity: ClosedRange<Date> = Date().addingTimeInterval(-3600)...Date().addingTimeInterval(7 * 86_400),
        chained: Bool = true
    ) throws -> (certificate: String, key: String) {
        let leafKey = P256.Signing.PrivateKey()
        let subject = try DistinguishedName { CommonName("localhost") }
        let leaf = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(),
            publicKey: Certificate.PublicKey(leafKey.publicKey), notValidBefore: validity.lowerBound,
            notValidAfter: validity.upperBound, issuer: name, subject: subject,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .dnsName("localhost"), .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                ])
            }, issuerPrivateKey: Certificate.PrivateKey(key))
        var chain = try leaf.serializeAsPEM().pemString + "\n"
        if chained { chain += try pem + "\n" }
        return (chain, leafKey.pemRepresentation)
    }
}
