import Sandbox
import SandboxCLISupport
import SandboxStore
import Testing

/// The CLI picks an exit status and a remedy by a failure's code, in one table each.
@Suite struct ExitStatusTableTests {
    @Test(arguments: [
        (SandboxError.Code.invalidAppIdentifier, ExitStatus.usage), (.invalidPath, ExitStatus.usage),
        (.invalidArgument, ExitStatus.usage), (.nameTooLong, ExitStatus.usage), (.invalidName, ExitStatus.usage),
        (.invalidValue, ExitStatus.usage), (.notFound, ExitStatus.failure), (.noSpace, ExitStatus.failure),
        (.database, ExitStatus.failure), (.protectedDataUnavailable, ExitStatus.failure),
    ])
    func aCodeEndsTheCommandWithItsStatus(code: SandboxError.Code, status: Int32) {
        #expect(ExitStatus.of(SandboxError(code, "It failed.")) == status)
    }

    @Test func aCodeSpelledLikeAUsageCodeIsNotOneUnlessItIsTheSameCode() {
        // Codes compare as values: a message naming a usage code changes nothing.
        let error = SandboxError(.corrupt, "The value is not an invalid-argument [invalid-argument].")
        #expect(ExitStatus.of(error) == ExitStatus.failure)
    }

    @Test func aBinaryThatLinksMoreLayersAddsTheirCodes() {
        let added = SandboxError.Code("added-usage-code")
        let table = ExitStatus.merging([added: ExitStatus.usage])
        #expect(ExitStatus.of(SandboxError(added, "Bad input."), in: table) == ExitStatus.usage)
        #expect(ExitStatus.of(SandboxError(added, "Bad input.")) == ExitStatus.failure)
        #expect(ExitStatus.of(SandboxError(.invalidPath, "Bad path."), in: table) == ExitStatus.usage)
    }

    @Test func remediesAreChosenByCodeNotByTheMessage() {
        let locked = SandboxError(.protectedDataUnavailable, "The file cannot be opened while the device is locked.")
        #expect(Remedies.line(for: locked).contains("`sandbox unlock`"))
        let missing = SandboxError(.notFound, "No item at 'Documents/a'.", path: "Documents/a")
        #expect(Remedies.line(for: missing).contains("`sandbox ls"))
        let hostFile = SandboxError(.notFound, "No key file at '/tmp/k'.", path: "/tmp/k")
        #expect(Remedies.line(for: hostFile) == "sandbox: No key file at '/tmp/k'. [not-found]")
    }
}
