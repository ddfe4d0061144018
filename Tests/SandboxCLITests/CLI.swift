import Foundation
import SandboxTesting

/// The built `sandbox` run against a home in a fresh scratch directory.
struct CLI {
    let home: String
    let scratch: String

    /// The `sandbox` executable, built beside the test binary.
    static var program: BuiltProgram {
        get throws { try BuiltProgram("sandbox") }
    }

    /// Runs `sandbox ARGUMENTS…` with `SANDBOX_HOME` set to the home.
    @discardableResult
    func run(_ arguments: String...) async throws -> ProgramOutput {
        try await run(arguments)
    }

    @discardableResult
    func run(_ arguments: [String]) async throws -> ProgramOutput {
        try await Self.program.run(arguments, environment: ["SANDBOX_HOME": home], outputIn: scratch)
    }

    static func withTemporary<T>(_ body: (CLI) async throws -> T) async throws -> T {
        try await ScratchDirectory.with(prefix: "sandbox-cli") { scratch in
            try await body(CLI(home: scratch.appending("home"), scratch: scratch.path))
        }
    }
}

extension CLI {
    /// Installs `app` from a bundle signed by a key trusted for it, whose `Info.plist` declares
    /// `keys` (raw XML key/value pairs) besides the app's identifier and version.
    func installSigned(_ app: String, declaring keys: String) async throws {
        let key = scratch + "/\(app).key"
        let source = scratch + "/bundles/\(app)/App.app"
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        try Data(infoPlist(identifier: app, version: "1", keys: keys).utf8).write(
            to: URL(fileURLWithPath: source + "/Info.plist"))
        for arguments in [
            ["keygen", key, "--trust"], ["sign", source, "--key", key], ["create", app, "--bundle", source],
        ] {
            let result = try await run(arguments)
            guard result.status == 0 else { throw TestFailure("sandbox \(arguments): \(result.stderr)") }
        }
    }

    /// `CFBundleDocumentTypes` accepting every document (`public.data`), for `open-in`.
    static let acceptsAnyDocument =
        "<key>CFBundleDocumentTypes</key><array><dict><key>LSItemContentTypes</key><array><string>public.data</string></array></dict></array>"
}
