import Foundation
import Sandbox
import SandboxStore
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// A finished download handed to a folder with a protection class is sealed with it (issue 26,
/// item 14): with `Documents` of class `complete`, its bytes on disk are not the plaintext while
/// unlocked, and while locked the hand-over is refused (`protected-data-unavailable`), nothing
/// written there in the clear.
@Suite struct ProtectedDestinationTests {
    let body = TestData.bytes(300_000, seed: 26)

    @Test func aDownloadIntoAProtectedFolderIsSealedAndRefusedWhileLocked() async throws {
        try await withFaultServer { server in
            server.set("/f", FaultResource(body: body, etag: "\"p\""))
            try await Fixture.with { fixture in
                let protection = DataProtection(home: fixture.container.home)
                try protection.setPasscode(Array("2468".utf8), current: [])
                defer { try? protection.forgetKeysAtRestart() }  // cleanup of the keyring; the test's result stands
                let documents = ContainerPath(constant: "Documents")
                try protection.setDefaultProtection(.complete, forDirectoryAt: documents, in: fixture.root)
                let session = try fixture.session()

                let outcome = try await fixture.download(server.url("/f"), session: session, destination: .documents)
                    .get()
                let path = try #require(outcome.path)
                #expect(try fixture.contents(path) != body, "the download is plaintext in a complete folder")
                #expect(try protection.readContents(of: path, in: fixture.root, maximumSize: 1 << 20) == body)
                #expect(try protection.protectionClass(of: path, in: fixture.root) == .complete)

                #expect(try protection.lock())
                let locked = try await fixture.download(server.url("/f"), session: session, destination: .documents)
                guard case .failure(let error) = locked else {
                    Issue.record("a download was handed to a complete folder while locked: \(locked)")
                    return
                }
                #expect(error.code.description == "protected-data-unavailable", "\(error)")
                #expect(try fixture.files(in: .documents).count == 1, "only the first download is in Documents")
            }
        }
    }
}
