import SandboxCore
import SystemPackage
import Testing

/// The one error type's parts that modules build on: what lay beneath, and typed values by key.
@Suite struct SandboxErrorTests {
    enum CountKey: SandboxErrorKey { typealias Value = Int }
    enum NameKey: SandboxErrorKey { typealias Value = String }
    struct Foreign: Error, CustomStringConvertible {
        var description: String { "connection reset by peer" }
    }

    @Test func typedValuesAreKeptPerKeyAndCopiedWithTheError() {
        var error = SandboxError(.unknown, "Something failed.")
        #expect(error[CountKey.self] == nil)
        error[CountKey.self] = 3
        error[NameKey.self] = "three"
        let copy = error
        error[CountKey.self] = nil
        #expect(error[CountKey.self] == nil)
        #expect(error[NameKey.self] == "three")
        #expect(copy[CountKey.self] == 3, "a copy keeps its own values")
    }

    @Test func aFailureBeneathKeepsItsCodeAndShowsItsSystemCallOnce() {
        let beneath = SandboxError.systemCall("openat2", errno: .noSuchFileOrDirectory, path: "Documents/a")
        let error = SandboxError(.corrupt, "The index is unreadable.", path: "Documents/a", underlying: .error(beneath))
        #expect(error.code == .corrupt)
        #expect(error.underlying?.sandboxError?.code == .notFound)
        #expect(error.underlying?.sandboxError?.cause?.systemCall == "openat2")
        #expect(
            error.description
                == "The index is unreadable. (\(beneath.cause.map(String.init(describing:)) ?? "")) [corrupt]")
    }

    @Test func wrappingSortsSandboxErrorsFromForeignOnes() {
        let core = SandboxError(.noSpace, "Full.")
        guard case .error(let kept)? = SandboxError.Underlying.wrapping(core) else {
            Issue.record("a SandboxError is kept as one")
            return
        }
        #expect(kept.code == .noSpace)
        #expect(SandboxError.Underlying.wrapping(nil) == nil)
        let foreign = SandboxError(.unknown, "The request failed.", underlying: .wrapping(Foreign()))
        #expect(foreign.underlying?.sandboxError == nil)
        #expect(foreign.description == "The request failed. (connection reset by peer) [unknown]")
        let detailed = SandboxError(.corrupt, "Not a list.", underlying: .detail("at key 'a': expected an array"))
        #expect(detailed.description == "Not a list. (at key 'a': expected an array) [corrupt]")
    }
}
