import Foundation
import Sandbox
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// A file failure under a download keeps the core's code (`already-exists`, `not-a-directory`, …)
/// instead of one catch-all, so callers branch on it as on a ``SandboxError``.
@Suite struct FileErrorTests {
    @Test func aTakenPathKeepsTheCoreCode() async throws {
        try await Fixture.withFaultServer { server, fixture in
            server.set("/f", FaultResource(body: TestData.bytes(1_000, seed: 41), etag: "\"e\""))
            let session = try fixture.session()
            let task = try session.downloadTask(with: try #require(URL(string: server.url("/f"))))
            task.resume()
            var failure: SandboxError?
            for await event in session.events {
                guard case .didFinishDownloading(_, let file) = event else { continue }
                let taken = try ContainerPath("Documents/taken")
                try fixture.root.writeContents([1], to: taken)
                failure = #expect(throws: SandboxError.self) { try file.move(toPath: taken) }
                break
            }
            _ = await task.result()
            #expect(failure?.code.description == "already-exists")
            #expect(failure?.path == "Documents/taken")
            #expect(failure?.underlying?.sandboxError?.code == .alreadyExists)
        }
    }

    @Test func aSessionFolderThatIsAFileKeepsTheCoreCode() async throws {
        try await Fixture.with { fixture in
            try fixture.root.createDirectory(at: ContainerPath("Library/Caches"), withIntermediateDirectories: true)
            try fixture.root.writeContents([1], to: DownloadSession.folder)
            let error = #expect(throws: SandboxError.self) { try fixture.session() }
            let core = try #require(error?.underlying?.sandboxError)
            #expect(error?.code.description == core.code.description)
            #expect(error?.code.description != "file")
        }
    }

    /// Listing sessions reports a folder it cannot read instead of "no sessions".
    @Test func anUnreadableSessionListingSaysSo() async throws {
        try await Fixture.with { fixture in
            // none yet: no folder
            #expect(try DownloadSession.sessionIdentifiers(container: fixture.container).isEmpty)
            try fixture.root.createDirectory(at: ContainerPath("Library/Caches"), withIntermediateDirectories: true)
            try fixture.root.writeContents([1], to: DownloadSession.folder)
            let error = #expect(throws: SandboxError.self) {
                try DownloadSession.sessionIdentifiers(container: fixture.container)
            }
            #expect(error?.code == SandboxError.Code.notADirectory)
        }
    }
}
