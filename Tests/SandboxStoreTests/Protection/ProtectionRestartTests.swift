import Foundation
import SandboxStore
import Testing

@Suite("Data protection: a restart through the library")
struct ProtectionRestartTests {
    let document = ContainerPath(constant: "Documents/after-first-unlock.txt")

    @Test("SandboxHome.restart() forgets the until-first-user-authentication key: unreadable until unlock")
    func libraryRestartForgetsKeys() throws {
        try ProtectionFixture.with { f in
            try f.protection.setPasscode(ProtectionFixture.passcode, current: [])
            try f.protection.write([1, 2, 3], to: document, in: f.root, protection: .untilFirstUserAuthentication)
            try f.protection.lock()
            #expect(try f.protection.readContents(of: document, in: f.root) == [1, 2, 3])
            try f.fixture.home.restart()
            // Another process (another instance) after the restart sees it too.
            for protection in [f.protection, DataProtection(home: f.fixture.home)] {
                f.expect(.protectedDataUnavailable) { _ = try protection.readContents(of: document, in: f.root) }
                #expect(try protection.isAvailable(.untilFirstUserAuthentication) == false)
            }
            try f.protection.unlock(passcode: ProtectionFixture.passcode)
            #expect(try f.protection.readContents(of: document, in: f.root) == [1, 2, 3])
            try f.fixture.home.restart()
            try f.protection.unlock(passcode: ProtectionFixture.passcode)
            try f.protection.lock()
            #expect(try f.protection.readContents(of: document, in: f.root) == [1, 2, 3])
        }
    }
}
