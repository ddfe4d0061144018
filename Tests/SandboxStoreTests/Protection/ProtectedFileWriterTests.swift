import Foundation
import SandboxStore
import Testing

@Suite("Data protection: files open for writing across a lock")
struct ProtectedFileWriterTests {
    let path = ContainerPath(constant: "Documents/recording.bin")
    /// 200 KiB and a bit: three full segments and a partial last one, in uneven pieces.
    let plaintext = (0..<(200 << 10) + 123).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 11) }

    @Test("complete-unless-open: opened unlocked, finished while locked, refused until unlock, then equal")
    func completeUnlessOpenFinishesWhileLocked() async throws {
        try await ProtectionFixture.with { f in
            try f.protection.setPasscode(ProtectionFixture.passcode, current: [])
            let writer = try f.protection.openWriter(at: path, in: f.root, protection: .completeUnlessOpen)
            try await writer.write(contentsOf: plaintext[0..<70_000])
            #expect(try f.protection.lock())
            try await writer.write(contentsOf: plaintext[70_000..<150_001])
            try await writer.write(contentsOf: plaintext[150_001...])
            try await writer.close()
            #expect(!contains(try f.rawBytes("Documents/recording.bin"), Array(plaintext[1000..<1064])))
            f.expect(.protectedDataUnavailable) { _ = try f.protection.readContents(of: path, in: f.root) }
            try f.protection.unlock(passcode: ProtectionFixture.passcode)
            #expect(try f.protection.readContents(of: path, in: f.root) == plaintext)
            #expect(try f.protection.protectionClass(of: path, in: f.root) == .completeUnlessOpen)
        }
    }

    @Test("complete: a write after lock is protected-data-unavailable and nothing is published")
    func completeEndsAtLock() async throws {
        try await ProtectionFixture.with { f in
            try f.protection.setPasscode(ProtectionFixture.passcode, current: [])
            let writer = try f.protection.openWriter(at: path, in: f.root, protection: .complete)
            try await writer.write(contentsOf: plaintext[0..<100_000])
            try f.protection.lock()
            await f.expect(.protectedDataUnavailable) { try await writer.write(contentsOf: plaintext[100_000...]) }
            await f.expect(.protectedDataUnavailable) { try await writer.close() }
            #expect(!FileManager.default.fileExists(atPath: f.fixture.container.homeDirectory + "/" + path.description))
        }
    }

    @Test(
        "sizes at segment boundaries and a plain writer round-trip; nothing is at the path before close",
        arguments: [0, 1, 64 << 10, (64 << 10) + 1, 3 << 16])
    func roundTrip(size: Int) async throws {
        try await ProtectionFixture.with { f in
            let bytes = Array(plaintext.prefix(size))
            for protection in [ProtectionClass.complete, nil] {
                let writer = try f.protection.openWriter(at: path, in: f.root, protection: protection)
                for start in stride(from: 0, to: bytes.count, by: 50_000) {
                    try await writer.write(contentsOf: bytes[start..<min(bytes.count, start + 50_000)])
                }
                #expect(
                    !FileManager.default.fileExists(atPath: f.fixture.container.homeDirectory + "/" + path.description))
                try await writer.close()
                #expect(try f.protection.readContents(of: path, in: f.root) == bytes)
                #expect(try f.protection.protectionClass(of: path, in: f.root) == protection)
                _ = try f.fixture.container.root.removeItem(at: path)
            }
        }
    }
}
