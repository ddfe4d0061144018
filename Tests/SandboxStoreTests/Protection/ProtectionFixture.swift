import Foundation
import SandboxStore
import SandboxTesting
import Testing

/// A ``Fixture`` with the device's Data Protection; the keyring entries the test made (named by a
/// digest of the test's own home, so parallel tests never share one) are removed afterwards.
struct ProtectionFixture {
    let fixture: Fixture
    let protection: DataProtection
    var root: ConfinedRoot { fixture.container.root }

    static let passcode = Array("1234-passcode-\u{e9}t\u{e9}".utf8)

    static func with<T>(_ body: (ProtectionFixture) throws -> T) throws -> T {
        try Fixture.with { fixture in
            let protection = DataProtection(home: fixture.home)
            defer {
                // Teardown: a failure here must not hide the test's own.
                do { try protection.forgetKeysAtRestart() } catch { Issue.record("keyring cleanup: \(error)") }
            }
            return try body(ProtectionFixture(fixture: fixture, protection: protection))
        }
    }

    static func with<T>(_ body: (ProtectionFixture) async throws -> T) async throws -> T {
        try await Fixture.with { fixture in
            let protection = DataProtection(home: fixture.home)
            defer {
                // Teardown: a failure here must not hide the test's own.
                do { try protection.forgetKeysAtRestart() } catch { Issue.record("keyring cleanup: \(error)") }
            }
            return try await body(ProtectionFixture(fixture: fixture, protection: protection))
        }
    }

    /// Expects `body` to throw a ``/SandboxCore/SandboxError`` with `code`.
    func expect(
        _ code: SandboxError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> Void
    ) async {
        do {
            try await body()
            Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as SandboxError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected SandboxError \(code), got \(error)", sourceLocation: sourceLocation)
        }
    }

    /// The raw bytes of `path` in the container, as an attacker reading the disk sees them.
    func rawBytes(_ path: String) throws -> [UInt8] {
        Array(try #require(FileManager.default.contents(atPath: fixture.container.homeDirectory + "/" + path)))
    }

    func replaceRawBytes(_ path: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: fixture.container.homeDirectory + "/" + path))
    }

    /// Expects `body` to throw a ``/SandboxCore/SandboxError`` with `code`.
    func expect(_ code: SandboxError.Code, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void)
    {
        do {
            try body()
            Issue.record("expected \(code), nothing was thrown", sourceLocation: sourceLocation)
        } catch let error as SandboxError {
            #expect(error.code == code, "\(error)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("expected SandboxError \(code), got \(error)", sourceLocation: sourceLocation)
        }
    }
}

/// Whether `needle` occurs anywhere in `haystack`.
func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard !needle.isEmpty, haystack.count >= needle.count else { return needle.isEmpty }
    return (0...(haystack.count - needle.count)).contains { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
}
