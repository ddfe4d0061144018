import Foundation
import Sandbox
import SandboxTesting

/// A home with the test app's container in a fresh scratch directory, for running the built
/// `sandbox` against.
struct CLIFixture {
    let home: String
    let scratch: String

    static func with<T>(_ body: (CLIFixture) async throws -> T) async throws -> T {
        try await ScratchDirectory.with(prefix: "sandbox-transfer-cli") { scratch in
            let cli = CLIFixture(home: scratch.appending("home"), scratch: scratch.path)
            _ = try SandboxHome(location: cli.home).createContainer(for: AppIdentifier(Fixture.app))
            return try await body(cli)
        }
    }

    /// Starts `sandbox ARGUMENTS…` against the home.
    func start(_ arguments: [String]) throws -> RunningProgram {
        try BuiltProgram("sandbox").start(arguments, environment: ["SANDBOX_HOME": home], outputIn: scratch)
    }

    /// Runs `sandbox ARGUMENTS…` against the home to its end.
    @discardableResult
    func run(_ arguments: String...) async throws -> ProgramOutput {
        try await start(arguments).finish()
    }

    /// A file of the container.
    func contents(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: containerHome + "/" + path)))
    }

    var containerHome: String {
        get throws { try SandboxHome(location: home).container(for: AppIdentifier(Fixture.app)).homeDirectory }
    }

    /// Waits until a partial file of the container's download sessions has `size` bytes.
    func waitForPartial(ofSize size: Int) async throws -> Bool {
        let sessions = try containerHome + "/Library/Caches/com.sandbox.downloads"
        return await eventually {
            let enumerator = FileManager.default.enumerator(atPath: sessions)
            while let name = enumerator?.nextObject() as? String {
                // not there yet: length 0
                let length =
                    (try? FileManager.default.attributesOfItem(atPath: sessions + "/" + name)[.size] as? Int) ?? 0
                if name.hasSuffix(".partial") && length == size { return true }
            }
            return false
        }
    }
}
