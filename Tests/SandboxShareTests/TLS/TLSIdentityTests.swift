import Crypto
import Foundation
import Sandbox
import SandboxTesting
import SwiftASN1
import Testing
import X509

@testable import SandboxShare

/// The device certificate's life (made once, kept, renewed with the same key) and the checks on a
/// certificate the user brings, in process; and `sandbox share` refusing bad files before it
/// listens.
@Suite struct TLSIdentityTests {
    static let names: Set<String> = ["localhost", "127.0.0.1", "::1", "box", "box.local"]

    @Test func theDeviceCertificateIsKeptThenRenewedWithTheSameKey() throws {
        try ScratchDirectory.with(prefix: "sandbox-device-cert") { scratch in
            let home = try SandboxHome(location: scratch.appending("home"))
            let now = Date()
            let first = try DeviceCertificate.identity(in: home, names: Self.names, now: now)
            let again = try DeviceCertificate.identity(in: home, names: Self.names, now: now.addingTimeInterval(86_400))
            #expect(again.fingerprint == first.fingerprint, "a valid certificate is kept")

            let named = try #require(try first.leaf.extensions.subjectAlternativeNames)
            #expect(named.contains(.dnsName("localhost")) && named.contains(.dnsName("box.local")))
            #expect(named.contains(.ipAddress(.init(contentBytes: [127, 0, 0, 1]))))
            #expect(named.contains(.ipAddress(.init(contentBytes: ArraySlice([UInt8](repeating: 0, count: 15) + [1])))))
            let days = first.leaf.notValidAfter.timeIntervalSince(now) / 86_400
            #expect((364...366).contains(days), "valid for \(days) days")

            // 29 days before it expires: a new certificate, the same key (the pin holds).
            let late = first.leaf.notValidAfter.addingTimeInterval(-29 * 86_400)
            let renewed = try DeviceCertificate.identity(in: home, names: Self.names, now: late)
            #expect(renewed.fingerprint != first.fingerprint)
            #expect(renewed.publicKeyPin == first.publicKeyPin)
            #expect(renewed.leaf.notValidAfter > first.leaf.notValidAfter)

            // Bound to an address the certificate does not name: issued again, same key.
            let wider = try DeviceCertificate.identity(
                in: home, names: Self.names.union(["192.0.2.7"]), now: late)
            #expect(wider.fingerprint != renewed.fingerprint && wider.publicKeyPin == first.publicKeyPin)
            let widerNames = try #require(try wider.leaf.extensions.subjectAlternativeNames)
            #expect(widerNames.contains(.ipAddress(.init(contentBytes: [192, 0, 2, 7]))))

            // A damaged certificate is made again; a damaged key is refused and left alone.
            try Data("junk".utf8).write(to: URL(fileURLWithPath: home.location + "/Device/Share/tls-certificate.pem"))
            let remade = try DeviceCertificate.identity(in: home, names: Self.names, now: late)
            #expect(remade.publicKeyPin == first.publicKeyPin)
            try Data("junk".utf8).write(to: URL(fileURLWithPath: home.location + "/Device/Share/tls-key.pem"))
            #expect {
                try DeviceCertificate.identity(in: home, names: Self.names, now: late)
            } throws: { ($0 as? SandboxError)?.code == .corrupt }
        }
    }

    @Test func twoSharesMakingTheKeyAtOnceAgreeOnOne() async throws {
        try await ScratchDirectory.with(prefix: "sandbox-device-cert") { scratch in
            let location = scratch.appending("home")
            _ = try SandboxHome(location: location)
            let pins = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        let home = try SandboxHome(location: location)
                        return try DeviceCertificate.identity(in: home, names: Self.names, now: Date()).publicKeyPin
                    }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(pins.count == 1, "pins: \(pins)")
        }
    }

    /// A user's certificate: its key must be its own, and it must be valid now.
    @Test func aMismatchedKeyAnExpiredOrFutureCertificateAndNoCertificateAreRefused() throws {
        let authority = try TestCertificateAuthority()
        let (certificate, key) = try authority.issue()
        let identity = try ShareTLSIdentity(
            certificatePEM: certificate, keyPEM: key, certificateSource: "cert.pem", keySource: "key.pem")
        #expect(identity.certificates.count == 2, "the chain is served whole")

        let (_, otherKey) = try authority.issue()
        let expired = try authority.issue(
            validity: Date().addingTimeInterval(-86_400 * 10)...Date().addingTimeInterval(-60))
        let future = try authority.issue(
            validity: Date().addingTimeInterval(86_400)...Date().addingTimeInterval(86_400 * 9))
        let cases: [(certificate: String, key: String, reason: String)] = [
            (certificate, otherKey, "is not the key of the certificate"),
            (expired.certificate, expired.key, "expired"),
            (future.certificate, future.key, "valid only from"),
            ("not a certificate", key, "holds no certificate"),
            (certificate, "not a key", "holds no private key"),
        ]
        for (certificatePEM, keyPEM, reason) in cases {
            #expect {
                try ShareTLSIdentity(
                    certificatePEM: certificatePEM, keyPEM: keyPEM, certificateSource: "cert.pem", keySource: "key.pem")
            } throws: { error in
                let error = error as? SandboxError
                return error?.code == .invalidCertificate && error?.message.contains(reason) == true
            }
        }
    }

    /// `sandbox share` with a missing file, a key that is not the certificate's, an expired
    /// certificate, or a wide bind without TLS: status 64 (usage) or 1 for a missing file, a
    /// message naming the problem, and it never printed a URL.
    @Test func badTLSFilesAndAnUnprotectedWideBindAreRefusedBeforeListening() async throws {
        try await ScratchDirectory.with(prefix: "sandbox-tls-refusals") { scratch in
            let authority = try TestCertificateAuthority()
            let good = try authority.issue()
            let other = try authority.issue()
            let expired = try authority.issue(
                validity: Date().addingTimeInterval(-86_400 * 10)...Date().addingTimeInterval(-60))
            for (name, text) in [
                ("good.pem", good.certificate), ("good.key", good.key), ("other.key", other.key),
                ("expired.pem", expired.certificate), ("expired.key", expired.key),
            ] {
                try Data(text.utf8).write(to: URL(fileURLWithPath: scratch.appending(name)))
            }
            let sandbox = try BuiltProgram("sandbox")
            let environment = ["SANDBOX_HOME": scratch.appending("home")]
            let created = try await sandbox.run(
                ["create", "com.example.tls"], environment: environment, outputIn: scratch.path)
            #expect(created.status == 0)
            let cases: [(arguments: [String], reason: String, status: Int32?)] = [
                (
                    ["--tls-cert", scratch.appending("missing.pem"), "--tls-key", scratch.appending("good.key")],
                    "missing.pem", nil
                ),
                (
                    ["--tls-cert", scratch.appending("good.pem"), "--tls-key", scratch.appending("other.key")],
                    "is not the key", 64
                ),
                (
                    ["--tls-cert", scratch.appending("expired.pem"), "--tls-key", scratch.appending("expired.key")],
                    "expired", 64
                ),
                (["--tls-cert", scratch.appending("good.pem")], "go together", 64),
                (["--bind", "0.0.0.0"], "without TLS", 64),
            ]
            for (arguments, reason, status) in cases {
                let output = try await sandbox.run(
                    ["share", "com.example.tls", "--port", "0"] + arguments, environment: environment,
                    outputIn: scratch.path, timeout: .seconds(60))
                #expect(output.status != 0 && output.stderr.contains(reason), "\(arguments): \(output.stderr)")
                if let status { #expect(output.status == status, "\(arguments): status \(output.status)") }
                #expect(!output.stdout.contains("URL:"), "\(arguments) listened: \(output.stdout)")
            }
        }
    }
}
