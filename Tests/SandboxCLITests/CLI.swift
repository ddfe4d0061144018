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
