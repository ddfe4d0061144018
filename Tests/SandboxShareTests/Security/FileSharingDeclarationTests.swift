import Foundation
import Logging
import Sandbox
import SandboxShare
import SandboxTesting
import Testing

/// As on iOS, only an app whose installed bundle declares `UIFileSharingEnabled` is shared: the
/// library's server refuses the others (not only the command line), reading the key from the
/// bundle as its signature vouches for it.
@Suite("The share serves only apps that declare file sharing")
struct FileSharingDeclarationTests {
    static func configuration(_ code: String) -> ShareConfiguration {
        ShareConfiguration(port: 0, credentials: ShareCredentials(user: "sandbox", password: code))
    }

    static var logger: Logger {
        var logger = Logger(label: "file-sharing-declaration")
        logger.logLevel = .critical
        return logger
    }

    // The library's tests stop at the server's construction, where the declaration is checked:
    // they send no request. A new connection's task starts on the cooperative pool, which other
    // suites of this process hold for tens of seconds on purpose (PoolIndependenceTests,
    // StarvedPoolCoordinationTests); a request sent then waited past its 20 s in two full runs.
    // That a declared app is served is what every `ShareServerProcess` test shows (their apps are
    // created with `--file-sharing`), and `commandLine` below checks the refusal end to end.

    @Test("the library refuses an app that does not declare it, and accepts one that does")
    func library() throws {
        try ScratchDirectory.with(prefix: "sandbox-share-declared") { scratch in
            let home = try SandboxHome(location: scratch.appending("home"))
            let undeclared = try home.createContainer(for: AppIdentifier("com.example.private"))
            do {
                _ = try ShareServer(container: undeclared, configuration: Self.configuration("c1"), logger: Self.logger)
                Issue.record("an app that does not declare file sharing was shared")
            } catch let error as SandboxError {
                #expect(error.code == .fileSharingDisabled)
                #expect(error.message.contains("UIFileSharingEnabled"))
                #expect(error.path == undeclared.infoPlistHostPath)
            }
            let declared = try home.createContainer(for: AppIdentifier("com.example.shared"), fileSharing: true)
            _ = try ShareServer(container: declared, configuration: Self.configuration("c2"), logger: Self.logger)
        }
    }

    @Test("a signed bundle declares it; an Info.plist edited after install to declare it is not trusted")
    func signedBundle() throws {
        try ScratchDirectory.with(prefix: "sandbox-share-signed") { scratch in
            let home = try SandboxHome(location: scratch.appending("home"))
            let key = SigningKey()
            try home.trust(key.publicKey)
            func install(_ app: String, sharing: Bool) throws -> Container {
                let bundle = scratch.appending("\(app).app")
                try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
                let value = sharing ? "<true/>" : "<false/>"
                try Data("<plist><dict><key>UIFileSharingEnabled</key>\(value)</dict></plist>".utf8).write(
                    to: URL(fileURLWithPath: bundle + "/Info.plist"))
                let identifier = try AppIdentifier(app)
                try BundleSigner.sign(
                    bundleAt: bundle, with: key,
                    identity: BundleIdentity(identifier: identifier, version: BundleVersion("1")))
                return try home.createContainer(for: identifier, bundleDirectory: bundle)
            }
            let shared = try install("com.example.signed", sharing: true)
            _ = try ShareServer(container: shared, configuration: Self.configuration("c3"), logger: Self.logger)
            // The bundle says NO; its Info.plist is rewritten on the host to say YES.
            let refused = try install("com.example.edited", sharing: false)
            let info = refused.infoPlistHostPath
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: info)
            try Data("<plist><dict><key>UIFileSharingEnabled</key><true/></dict></plist>".utf8).write(
                to: URL(fileURLWithPath: info))
            #expect {
                _ = try ShareServer(container: refused, configuration: Self.configuration("c4"), logger: Self.logger)
            } throws: { error in
                (error as? SandboxError)?.code == .bundleModified
            }
        }
    }

    @Test("sandbox share refuses an undeclared app with the key, the Info.plist and the remedy; never listens")
    func commandLine() async throws {
        try await ScratchDirectory.with(prefix: "sandbox-share-cli-declared") { scratch in
            let app = "com.example.private"
            let environment = ["SANDBOX_HOME": scratch.appending("home")]
            let sandbox = try BuiltProgram("sandbox")
            let created = try await sandbox.run(["create", app], environment: environment, outputIn: scratch.path)
            try #require(created.status == 0, "\(created.stderr)")
            let share = try await sandbox.run(
                ["share", app, "--port", "0"], environment: environment, outputIn: scratch.path)
            #expect(share.status == 1)
            #expect(!share.stdout.contains("Pairing code"), "\(share.stdout)")
            let info = scratch.appending("home") + "/Containers/Bundle/\(app)/private.app/Info.plist"
            #expect(
                share.stderr.hasPrefix(
                    "sandbox: '\(app)' does not declare file sharing: its bundle's Info.plist ('\(info)') does not set UIFileSharingEnabled to true"
                ), "\(share.stderr)")
            #expect(share.stderr.contains("`sandbox create <app-id> --file-sharing`"), "\(share.stderr)")
            #expect(share.stderr.hasSuffix("[file-sharing-disabled]\n"), "\(share.stderr)")
        }
    }
}
