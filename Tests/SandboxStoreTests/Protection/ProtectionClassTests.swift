import Foundation
import SandboxStore
import SandboxTesting
import Testing

@Suite("Data protection: classes and lock state")
struct ProtectionClassTests {
    let document = ContainerPath(constant: "Documents/secret.txt")
    let plaintext = Array(String(repeating: "attack at dawn, the plaintext marker 0x5eC7 ", count: 3000).utf8)

    @Test("a complete file's bytes on disk hold none of its plaintext; it reads back; stat shows its class")
    func encryptedAtRest() throws {
        try ProtectionFixture.with { f in
            try f.protection.write(plaintext, to: document, in: f.root, protection: .complete)
            let raw = try f.rawBytes("Documents/secret.txt")
            #expect(!contains(raw, Array("attack at dawn".utf8)))
            #expect(!contains(raw, Array(plaintext[5000..<5016])))
            #expect(try f.protection.readContents(of: document, in: f.root) == plaintext)
            #expect(try f.protection.protectionClass(of: document, in: f.root) == .complete)
            let attribute = try f.root.extendedAttribute(named: ProtectionClass.attributeName, at: document)
            #expect(attribute == Array("complete".utf8))
        }
    }

    @Test("locked: complete is protected-data-unavailable, readable again after unlock")
    func lockAndUnlock() throws {
        try ProtectionFixture.with { f in
            try f.protection.setPasscode(ProtectionFixture.passcode, current: [])
            try f.protection.write(plaintext, to: document, in: f.root, protection: .complete)
            #expect(try f.protection.lock())
            f.expect(.protectedDataUnavailable) { _ = try f.protection.readContents(of: document, in: f.root) }
            f.expect(.protectedDataUnavailable) {
                try f.protection.write(
                    [1], to: ContainerPath(constant: "Documents/new"), in: f.root, protection: .complete)
            }
            // Another instance (another process) sees the same lock state: it lives in the keyring.
            let other = DataProtection(home: f.fixture.home)
            #expect(try other.isAvailable(.complete) == false)
            try other.unlock(passcode: ProtectionFixture.passcode)
            #expect(try f.protection.readContents(of: document, in: f.root) == plaintext)
        }
    }

    @Test("complete-unless-open: written while locked, read after unlock")
    func completeUnlessOpen() throws {
        try ProtectionFixture.with { f in
            try f.protection.setPasscode(ProtectionFixture.passcode, current: [])
            try f.protection.lock()
            try f.protection.write(plaintext, to: document, in: f.root, protection: .completeUnlessOpen)
            #expect(!contains(try f.rawBytes("Documents/secret.txt"), Array("attack at dawn".utf8)))
            f.expect(.protectedDataUnavailable) { _ = try f.protection.readContents(of: document, in: f.root) }
            try f.protection.unlock(passcode: ProtectionFixture.passcode)
            #expect(try f.protection.readContents(of: document, in: f.root) == plaintext)
        }
    }

    @Test("until-first-user-authentication survives lock, not restart; none is always readable")
    func untilFirstUserAuthentication() throws {
        try ProtectionFixture.with { f in
            try f.protection.setPasscode(ProtectionFixture.passcode, current: [])
            let always = ContainerPath(constant: "Documents/always")
            try f.protection.write(plaintext, to: document, in: f.root, protection: .untilFirstUserAuthentication)
            try f.protection.write([7, 8, 9], to: always, in: f.root, protection: ProtectionClass.none)
            try f.protection.lock()
            #expect(try f.protection.readContents(of: document, in: f.root) == plaintext)
            try f.protection.forgetKeysAtRestart()
            f.expect(.protectedDataUnavailable) { _ = try f.protection.readContents(of: document, in: f.root) }
            #expect(try f.protection.readContents(of: always, in: f.root) == [7, 8, 9])
            try f.protection.unlock(passcode: ProtectionFixture.passcode)
            try f.protection.lock()
            #expect(try f.protection.readContents(of: document, in: f.root) == plaintext)
        }
    }

    @Test("without a passcode every class is available and lock does nothing")
    func noPasscode() throws {
        try ProtectionFixture.with { f in
            try f.protection.write(plaintext, to: document, in: f.root, protection: .complete)
            #expect(try f.protection.lock() == false)
            #expect(try f.protection.readContents(of: document, in: f.root) == plaintext)
        }
    }

    @Test("the passcode is never stored; a wrong one is refused, with back-off after five")
    func passcodeNeverStoredAndBackoff() throws {
        try ProtectionFixture.with { f in
            try f.protection.setPasscode(ProtectionFixture.passcode, current: [])
            try f.protection.write(plaintext, to: document, in: f.root, protection: .complete)
            let everything = try #require(FileManager.default.enumerator(atPath: f.fixture.scratch))
            for case let relative as String in everything {
                guard let data = FileManager.default.contents(atPath: f.fixture.scratch + "/" + relative) else {
                    continue
                }
                #expect(!contains(Array(data), ProtectionFixture.passcode), "passcode found in \(relative)")
            }
            try f.protection.lock()
            for _ in 0..<5 {
                f.expect(.passcodeIncorrect) { try f.protection.unlock(passcode: Array("0000".utf8)) }
            }
            // The sixth try is refused before the passcode is looked at, even the right one.
            f.expect(.passcodeBackoff) { try f.protection.unlock(passcode: ProtectionFixture.passcode) }
            f.expect(.passcodeBackoff) {
                try DataProtection(home: f.fixture.home).unlock(passcode: ProtectionFixture.passcode)
            }
            f.expect(.protectedDataUnavailable) { _ = try f.protection.readContents(of: document, in: f.root) }
        }
    }

    @Test("changing and removing the passcode keeps every file readable")
    func changePasscode() throws {
        try ProtectionFixture.with { f in
            try f.protection.setPasscode(ProtectionFixture.passcode, current: [])
            try f.protection.write(plaintext, to: document, in: f.root, protection: .complete)
            f.expect(.passcodeIncorrect) { try f.protection.setPasscode(Array("x".utf8), current: Array("wrong".utf8)) }
            try f.protection.setPasscode(Array("second".utf8), current: ProtectionFixture.passcode)
            try f.protection.lock()
            f.expect(.passcodeIncorrect) { try f.protection.unlock(passcode: ProtectionFixture.passcode) }
            try f.protection.unlock(passcode: Array("second".utf8))
            try f.protection.setPasscode([], current: Array("second".utf8))
            try f.protection.forgetKeysAtRestart()
            #expect(try f.protection.readContents(of: document, in: f.root) == plaintext)
        }
    }

    @Test("a folder's default class is given to new files written without one")
    func directoryDefault() throws {
        try ProtectionFixture.with { f in
            let folder = ContainerPath(constant: "Documents")
            let plain = ContainerPath(constant: "Documents/plain")
            try f.protection.write(Array("visible".utf8), to: plain, in: f.root)
            #expect(try f.rawBytes("Documents/plain") == Array("visible".utf8))
            #expect(try f.protection.protectionClass(of: plain, in: f.root) == nil)
            try f.protection.setDefaultProtection(.untilFirstUserAuthentication, forDirectoryAt: folder, in: f.root)
            try f.protection.write(plaintext, to: document, in: f.root)
            #expect(try f.protection.protectionClass(of: document, in: f.root) == .untilFirstUserAuthentication)
            #expect(try f.protection.readContents(of: plain, in: f.root) == Array("visible".utf8))
        }
    }
}
