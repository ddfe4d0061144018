import Foundation
import Glibc
import SandboxTesting
import Testing

/// cadaver, the command-line WebDAV client, scripted through its standard input, one session per
/// step, with the files in Documents checked after each.
@Suite struct CadaverTests {
    @Test(.enabled(if: ExternalTool.available("cadaver")), .timeLimit(.minutes(5)))
    func aScriptedSessionChangesDocumentsStepByStep() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-cadaver") { scratch in
                let session = CadaverSession(server: server, scratch: scratch)
                try session.writeNetrc()
                let local = scratch.appending("hello.txt")
                try Data("hello, cadaver\n".utf8).write(to: URL(fileURLWithPath: local))

                try await session.expectSuccess(["mkcol docs"])
                #expect(isDirectory(server.documents("docs")))

                try await session.expectSuccess(["cd docs", "put \(local) hello.txt"])
                #expect(server.contents("docs/hello.txt") == "hello, cadaver\n")

                try await session.expectSuccess(["cd docs", "get hello.txt \(scratch.appending("back.txt"))"])
                #expect(
                    FileManager.default.contents(atPath: scratch.appending("back.txt")) == Data("hello, cadaver\n".utf8)
                )

                try await session.expectSuccess(["cd docs", "move hello.txt renamed.txt"])
                #expect(server.contents("docs/hello.txt") == nil)
                #expect(server.contents("docs/renamed.txt") == "hello, cadaver\n")

                try await session.expectSuccess(["cd docs", "propset renamed.txt colour blue"])
                let properties = try await session.expectSuccess(["cd docs", "propget renamed.txt colour"])
                #expect(properties.contains("blue"), "propget after propset: \(properties)")
                #expect(server.documentsTree() == ["docs", "docs/renamed.txt"], "dead properties are never listed")

                let locked = try await session.expectSuccess([
                    "cd docs", "lock renamed.txt", "showlocks", "unlock renamed.txt",
                ])
                #expect(locked.contains("opaquelocktoken:") || locked.contains("urn:uuid:"), "a lock token: \(locked)")
                let unlocked = try await server.send("PUT", "/docs/renamed.txt", text: "after unlock")
                #expect(unlocked.status == 204, "PUT after cadaver's unlock: \(unlocked)")

                try await session.expectSuccess(["cd docs", "delete renamed.txt"])
                #expect(server.contents("docs/renamed.txt") == nil)

                try await session.expectSuccess(["rmcol docs"])
                #expect(server.documentsTree().isEmpty)
            }
        }
    }

    /// A locked file refuses a write without the token while cadaver holds the lock.
    @Test(.enabled(if: ExternalTool.available("cadaver")), .timeLimit(.minutes(5)))
    func aLockTakenByCadaverIsEnforced() async throws {
        try await ShareServerProcess.with { server in
            try await ScratchDirectory.with(prefix: "sandbox-cadaver") { scratch in
                let session = CadaverSession(server: server, scratch: scratch)
                try session.writeNetrc()
                try server.plant("locked.txt", "original")
                // cadaver keeps its locks when it quits: the lock stays until its timeout.
                try await session.expectSuccess(["lock locked.txt"])
                let refused = try await server.send("PUT", "/locked.txt", text: "overwritten")
                #expect(refused.status == 423, "PUT without the lock token: \(refused)")
                #expect(server.contents("locked.txt") == "original")
            }
        }
    }

    private func isDirectory(_ path: String) -> Bool {
        var directory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &directory) && directory.boolValue
    }
}

/// Runs cadaver against a server with its credentials in a `.netrc` of a scratch `HOME`.
struct CadaverSession {
    let server: ShareServerProcess
    let scratch: ScratchDirectory

    func writeNetrc() throws {
        let netrc = scratch.appending(".netrc")
        try "machine 127.0.0.1 login sandbox password \(server.code)\n".write(
            toFile: netrc, atomically: true, encoding: .utf8)
        chmod(netrc, 0o600)
    }

    /// Runs the commands (then `quit`) in one session; records an issue when cadaver reports a
    /// failure. Returns what it printed.
    @discardableResult
    func expectSuccess(_ commands: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> String {
        let output = try await ExternalTool.run(
            "cadaver", [server.url], in: scratch.path, environment: ["HOME": scratch.path],
            input: (commands + ["quit"]).joined(separator: "\n") + "\n", outputIn: scratch.path, timeout: .seconds(60))
        let text = output.stdout + output.stderr
        #expect(output.exit == .exited(0), "cadaver \(commands): \(text)", sourceLocation: sourceLocation)
        let failed =
            text.range(of: "failed", options: .caseInsensitive) != nil
            || text.contains("Could not") || text.contains("Authentication")
        #expect(
            !failed, "cadaver \(commands) reported a failure: \(text)\nserver log: \(server.log().suffix(1500))",
            sourceLocation: sourceLocation)
        return text
    }
}
