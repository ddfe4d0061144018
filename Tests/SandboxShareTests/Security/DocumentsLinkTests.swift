import Foundation
import Glibc
import SandboxTesting
import Testing

/// An app that replaces its Documents with a symbolic link gets nothing shared: `sandbox share`
/// refuses to start, as `sandbox path … documents` refuses the link, instead of serving the
/// place the link names (its Library, with the preferences, or a folder of the host).
@Suite struct DocumentsLinkTests {
    /// `Documents -> Library` (relative: it stays in the container, where a confined root
    /// follows it) and `Documents -> /etc`, resolved by `openat2` and by the manual walk.
    @Test(arguments: ["Library", "/etc"], ["openat2", "walk"])
    func aSymlinkedDocumentsIsNotShared(target: String, resolution: String) async throws {
        try await ScratchDirectory.with(prefix: "sandbox-share-link") { scratch in
            let app = "com.example.linked"
            let environment = ["SANDBOX_HOME": scratch.appending("home"), "SANDBOX_RESOLVE": resolution]
            let sandbox = try BuiltProgram("sandbox")
            let created = try await sandbox.run(
                ["create", app, "--file-sharing"], environment: environment, outputIn: scratch.path)
            try #require(created.status == 0, "sandbox create: \(created.stderr)")
            let located = try await sandbox.run(
                ["path", app, "documents"], environment: environment, outputIn: scratch.path)
            let documents = located.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            try #require(located.status == 0 && !documents.isEmpty, "sandbox path: \(located.stderr)")
            let container = URL(fileURLWithPath: documents).deletingLastPathComponent().path
            // The app's preferences, which a client reached (and overwrote) through the link.
            let preferences = container + "/Library/Preferences/\(app).plist"
            try FileManager.default.createDirectory(
                atPath: container + "/Library/Preferences", withIntermediateDirectories: true)
            try Data("secret preferences".utf8).write(to: URL(fileURLWithPath: preferences))
            try FileManager.default.removeItem(atPath: documents)
            try #require(symlink(target, documents) == 0, "symlink: errno \(errno)")

            let process = try sandbox.start(
                ["share", app, "--port", "0"], environment: environment, outputIn: scratch.path)
            let settled = await eventually(timeout: .seconds(60)) {
                let printed = (try? process.standardOutput()) ?? ""  // not written yet: keep waiting
                return !process.isRunning || printed.contains("Pairing code:")
            }
            if process.isRunning {
                process.signal(SIGKILL)
                Issue.record(
                    "sandbox share served Documents -> \(target) (settled: \(settled)): \(try process.standardOutput())"
                )
            }
            let exit = await process.exit(timeout: .seconds(60))
            let message = try process.standardError()
            #expect(exit == .exited(1), "\(exit): \(message)")
            #expect(message.contains("Documents") && message.contains("symbolic link"), "\(message)")
            #expect(message.contains("Remove the link"), "the remedy: \(message)")
            #expect(message.contains("[forbidden]"), "\(message)")
            #expect(try String(contentsOfFile: preferences, encoding: .utf8) == "secret preferences")
        }
    }
}
