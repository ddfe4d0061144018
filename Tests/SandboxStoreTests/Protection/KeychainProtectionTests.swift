import Foundation
import SandboxStore
import SandboxTesting
import Testing

@Suite("Data protection: keychain accessibility classes")
struct KeychainProtectionTests {
    @Test("whenUnlocked items are protected-data-unavailable while locked; afterFirstUnlock and always are not")
    func accessibilityFollowsTheLock() throws {
        try ProtectionFixture.with { f in
            let keychain = try Keychain(home: f.fixture.home, app: Fixture.app, service: "com.example.api")
            try keychain.accessibility(.whenUnlockedThisDeviceOnly).set("token", key: "unlocked")
            try keychain.accessibility(.afterFirstUnlock).set("refresh", key: "after-first")
            try keychain.accessibility(.always).set("id", key: "always")
            try f.protection.setPasscode(ProtectionFixture.passcode, current: [])
            try f.protection.lock()
            f.expect(.protectedDataUnavailable) { _ = try keychain.get("unlocked") }
            f.expect(.protectedDataUnavailable) { _ = try keychain.allItems() }
            #expect(try keychain.get("after-first") == "refresh")
            // Listing names needs no secret; writing a whenUnlocked item while locked is still possible.
            #expect(try keychain.allKeys() == ["after-first", "always", "unlocked"])
            try f.protection.forgetKeysAtRestart()
            f.expect(.protectedDataUnavailable) { _ = try keychain.get("after-first") }
            #expect(try keychain.get("always") == "id")
            try f.protection.unlock(passcode: ProtectionFixture.passcode)
            #expect(try keychain.get("unlocked") == "token")
        }
    }
}
