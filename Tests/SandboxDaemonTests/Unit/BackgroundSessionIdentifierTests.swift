import Foundation
import SandboxTransfer
import Testing

@testable import SandboxDaemon

/// The daemon names the download sessions of background sessions, and listings tell them apart,
/// by one constant: what the daemon makes is what ``DownloadSession/isBackground(identifier:)`` says.
@Suite struct BackgroundSessionIdentifierTests {
    @Test func theDaemonsSessionsAreTheOnesListingsCallBackground() throws {
        let made = BackgroundQueueSchema.downloadSession(of: "cli")
        #expect(DownloadSession.isBackground(identifier: made))
        #expect(SessionHost.sessionPrefix == DownloadSession.backgroundIdentifierPrefix)
        let url = try #require(URL(string: "https://example.com/a"))
        let foreground = DownloadSession.identifier(for: url, prefix: "cli-")
        #expect(!DownloadSession.isBackground(identifier: foreground))
    }
}
