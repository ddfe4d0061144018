import Foundation
import Sandbox
import SandboxStore
import Testing

@testable import SandboxTransfer

/// A download's failure is a ``SandboxError`` like any other; its URL and resume data travel in
/// the error's context and survive being thrown, caught as `any Error`, and copied.
@Suite struct TransferErrorContextTests {
    let resumeData = ResumeData(
        sessionIdentifier: "s", taskIdentifier: 7, originalURL: "http://example.com/a.bin",
        validator: .entityTag("\"v1\""), expectedLength: 1000,
        partialFile: PartialFileIdentity(name: "7.partial", inode: 42), expectedDigest: nil, headers: [:],
        createdAt: Date(timeIntervalSince1970: 1_700_000_000))

    private func fail(_ error: SandboxError) throws {
        throw error
    }

    @Test func resumeDataSurvivesThrowingAndCopying() throws {
        let cancelled = SandboxError(.cancelled, "The download was cancelled.", url: "http://example.com/a.bin")
            .with(resumeData: resumeData)
        var caught: (any Error)?
        do { try fail(cancelled) } catch { caught = error }
        let error = try #require(caught as? SandboxError)
        #expect(error.code == .cancelled)
        #expect(error.code.rawValue == "cancelled")
        #expect(error.resumeData == resumeData)
        #expect(error.url == "http://example.com/a.bin")
        var copy = error
        copy.resumeData = nil
        #expect(copy.resumeData == nil)
        #expect(error.resumeData == resumeData, "a copy's change leaves the original alone")
    }

    @Test func aFileFailureKeepsTheCoresCodeAndTheErrorBeneath() {
        let core = SandboxError(
            .noSpace, "No space left on the device while writing 'Documents/a.bin'.", path: "Documents/a.bin")
        let error = SandboxError.fileSystem(core, doing: "write the download")
        #expect(error.code == .noSpace)
        #expect(error.path == "Documents/a.bin")
        #expect(error.underlying?.sandboxError?.message == core.message)
        #expect(error.message == "Could not write the download: \(core.message)")
        #expect(error.description == "Could not write the download: \(core.message) [no-space]")
    }

    @Test func theDownloadsCodesKeepTheirSpellings() {
        let codes: [SandboxError.Code] = [
            .cancelled, .interrupted, .invalidURL, .httpStatus, .invalidResponse, .network, .stalled,
            .tooManyRedirects, .tooLarge, .checksumMismatch, .invalidResumeData, .sessionInUse, .sessionInvalidated,
            .invalidArgument, .protocolViolation, .protocolVersion, .daemonUnavailable, .notFound, .noSpace, .corrupt,
        ]
        #expect(
            codes.map(\.rawValue) == [
                "cancelled", "interrupted", "invalid-url", "http-status", "invalid-response", "network", "stalled",
                "too-many-redirects", "too-large", "checksum-mismatch", "invalid-resume-data", "session-in-use",
                "session-invalidated", "invalid-argument", "protocol-violation", "protocol-version",
                "daemon-unavailable", "not-found", "no-space", "corrupt",
            ])
    }
}
