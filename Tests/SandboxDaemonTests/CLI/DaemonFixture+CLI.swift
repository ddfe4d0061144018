import SandboxTesting

extension DaemonFixture {
    /// Runs the built `sandbox` with this fixture's home and runtime folder, to its end.
    func sandbox(_ arguments: String...) async throws -> ProgramOutput {
        try await BuiltProgram("sandbox").run(
            arguments, environment: environment(), outputIn: scratch.path, timeout: .seconds(60))
    }
}
