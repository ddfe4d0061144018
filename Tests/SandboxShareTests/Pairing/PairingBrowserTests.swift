import Foundation
import SandboxTesting
import Testing

/// The pairing link in real headless Chromium (``SharePageScript``) against `sandbox share --tls`.
@Suite struct PairingBrowserTests {
    /// The link logs Chromium in at once and shows the printed fingerprint; the link again from a
    /// browser without the cookie is refused.
    @Test(.enabled(if: SharePageScript.available), .timeLimit(.minutes(3)))
    func chromiumIsPairedOnceOverTLS() async throws {
        try await ShareServerProcess.with(arguments: ["--tls"]) { server in
            try await ScratchDirectory.with(prefix: "sandbox-browser-pairing") { scratch in
                try server.plant("kept.txt", "kept")
                let printed = try server.process.standardOutput()
                let pin = try #require(ShareServerProcess.value(after: "Key pin:", in: printed))
                let link = try #require(ShareServerProcess.value(after: "Pair a phone:", in: printed))
                let certificate = try #require(ShareServerProcess.value(after: "Certificate:", in: printed))
                #expect(link.hasPrefix("https://"), "\(link)")
                try await SharePageScript.run(
                    .pairing, on: server, scratch: scratch, publicKeyPin: String(pin.dropFirst("sha256//".count)),
                    environment: [
                        "SHARE_PAIRING_LINK": link,
                        "SHARE_FINGERPRINT": String(certificate.dropFirst("SHA-256 ".count)),
                    ])
                let log = server.log()
                #expect(!log.contains(String(link.split(separator: "/").last ?? "")), "the token is not logged")
            }
        }
    }

    /// The owner's page (logged in with the code) lists a second Chromium paired with the link,
    /// which sees no Devices itself; the owner revokes it and its next request is refused.
    @Test(.enabled(if: SharePageScript.available), .timeLimit(.minutes(3)))
    func theOwnersPageListsAPairedBrowserAndRevokesIt() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-browser-devices") { scratch in
                try server.plant("kept.txt", "kept")
                let printed = try server.process.standardOutput()
                let link = try #require(ShareServerProcess.value(after: "Pair a phone:", in: printed))
                try await SharePageScript.run(
                    .devices, on: server, scratch: scratch, environment: ["SHARE_PAIRING_LINK": link])
                #expect(server.log().contains("revoked from the page"), "\(server.log().suffix(1500))")
            }
        }
    }
}
