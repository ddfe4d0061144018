import Sandbox
import Testing

@testable import SandboxShare

/// Under TLS the server's URIs are `https` ones: a `Destination` or an `If` Resource-Tag names
/// this server with `https://` (litmus's COPY and MOVE failed with 502 when only `http` was), and
/// a `Host` without a port is the server's on 443.
@Suite struct TLSSchemeTests {
    let authorities: Set<String> = ["127.0.0.1:8443", "localhost:8443", "device.local"]

    @Test func httpsURIsNameThisServerUnderTLSAndHTTPOnesDoNot() throws {
        #expect(
            try DestinationHeader.parse("https://127.0.0.1:8443/a", allowedAuthorities: authorities, scheme: "https")
                .description == "/a")
        #expect(
            try DestinationHeader.parse("HTTPS://device.local:443/c", allowedAuthorities: authorities, scheme: "https")
                .description == "/c")
        for foreign in ["http://127.0.0.1:8443/a", "https://127.0.0.1:8444/a", "https://device.local:80/c"] {
            #expect {
                try DestinationHeader.parse(foreign, allowedAuthorities: authorities, scheme: "https")
            } throws: { ($0 as? SandboxError)?.code == .badGateway }
        }
        let header = try IfHeader.parse(
            "<https://localhost:8443/a> (<urn:uuid:1>) <http://localhost:8443/a> (<urn:uuid:2>)",
            allowedAuthorities: authorities, scheme: "https")
        #expect(header.lists.map(\.resource) == [.path(try SharePath(requestPath: "/a")), .foreign])
    }

    @Test func aHostWithoutPortIsTheServersOnTheSchemesDefaultPort() throws {
        let identity = try TLSFixture.identity()
        var configuration = ShareConfiguration(host: "127.0.0.1", credentials: .init(user: "u", password: "p"))
        #expect(configuration.allowedAuthorities(port: 80).contains("127.0.0.1"))
        #expect(!configuration.allowedAuthorities(port: 443).contains("127.0.0.1"))
        configuration.tls = identity
        #expect(configuration.allowedAuthorities(port: 443).contains("127.0.0.1"))
        #expect(!configuration.allowedAuthorities(port: 80).contains("127.0.0.1"))
    }
}

/// An identity from a test CA, for tests that need a ``ShareTLSIdentity`` value.
enum TLSFixture {
    static func identity() throws -> ShareTLSIdentity {
        let (certificate, key) = try TestCertificateAuthority().issue()
        return try ShareTLSIdentity(
            certificatePEM: certificate, keyPEM: key, certificateSource: "cert.pem", keySource: "key.pem")
    }
}
