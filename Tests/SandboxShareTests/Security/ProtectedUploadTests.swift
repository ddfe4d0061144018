import Foundation
import SandboxTesting
import Testing

/// Uploads honour the folder's protection class (issue 26, item 14), against a real `sandbox
/// share`: with `Documents` of class `complete`, a WebDAV PUT is sealed on disk (and reads back
/// through `sandbox cat`); while the device is locked it is refused and nothing is stored.
@Suite struct ProtectedUploadTests {
    static let secret = "the launch codes are 0000\n"

    /// `sandbox ARGUMENTS…` against the server's home, `input` on standard input.
    static func sandbox(
        _ server: ShareServerProcess, _ arguments: [String], input: String = ""
    ) async throws
        -> ProgramOutput
    {
        try await BuiltProgram("sandbox").run(
            arguments, environment: ["SANDBOX_HOME": server.home], input: Array(input.utf8),
            outputIn: server.scratch.path)
    }

    @Test func uploadsAreSealedAndRefusedWhileLocked() async throws {
        try await ShareServerProcess.with { server in
            #expect(try await Self.sandbox(server, ["passcode", "set"], input: "\n2468\n").status == 0)
            var failure: (any Error)?
            do {
                let folder = try await Self.sandbox(
                    server, ["write", server.app, "Documents", "--default-for-folder", "--protection", "complete"])
                #expect(folder.status == 0, "\(folder.stderr)")

                let put = try await server.send("PUT", "/codes.txt", text: Self.secret)
                #expect(put.status == 201, "\(put)")
                let stored = try #require(server.contents("codes.txt"))
                #expect(!stored.contains("launch codes"), "the upload is plaintext on disk")
                let cat = try await Self.sandbox(server, ["cat", server.app, "Documents/codes.txt"])
                #expect(cat.stdout == Self.secret, "\(cat.stderr)")

                #expect(try await Self.sandbox(server, ["lock"]).status == 0)
                // The share takes changes again once it has seen the lock end (it answers 503 until).
                let locked = try await server.sendUntilTaken("PUT", "/locked.txt", body: Array(Self.secret.utf8))
                #expect(locked.status == 403, "\(locked)")
                #expect(server.contents("locked.txt") == nil)
                let replaced = try await server.send("PUT", "/codes.txt", text: "plaintext while locked")
                #expect(replaced.status == 403, "\(replaced)")
                #expect(server.contents("codes.txt") == stored)
            } catch {
                failure = error
            }
            // The keyring entries this home made go with a restart, whatever happened above.
            #expect(try await Self.sandbox(server, ["restart"]).status == 0)
            if let failure { throw failure }
        }
    }
}
