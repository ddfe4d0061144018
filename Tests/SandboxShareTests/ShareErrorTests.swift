import Sandbox
import SandboxStore
import Testing

@testable import SandboxShare

@Suite struct ShareErrorTests {
    @Test(arguments: [
        (SandboxError.Code.notFound, 404), (.noSpace, 507), (.notADirectory, 409), (.escapesContainer, 403),
        (.symlinkLoop, 403), (.io, 500), (.readOnly, 403),
    ])
    func fileSystemErrorsAnswerWithTheStatusAClientExpects(code: SandboxError.Code, status: Int) {
        let error = SandboxError.fileSystem(
            SandboxError(code, "host detail /srv/secret", path: "a/b"), path: "/a/b", doing: "read")
        #expect(error.code.httpStatus == status)
        #expect(error.message.hasPrefix("Could not read '/a/b': "))
        #expect(!error.message.contains("/srv/secret"), "the host path stays in the log, out of the response")
        #expect(error.underlying?.sandboxError?.code == code)
    }

    @Test func aFailureAHandlerAnsweredPassesDataProtectionUnchanged() throws {
        let path = try SharePath(requestPath: "/a.txt")
        let answered = SandboxError(.forbidden, "'/a.txt' is a symbolic link.", path: "/a.txt")
        let passed = SandboxError.dataProtection(answered, path: path, doing: "read", lockedMessage: "locked")
        #expect(passed.code == .forbidden && passed.message == answered.message)
        let locked = SandboxError(.protectedDataUnavailable, "The class key is locked.")
        #expect(
            SandboxError.dataProtection(locked, path: path, doing: "read", lockedMessage: "locked").code.httpStatus
                == 403)
        let core = SandboxError(.escapesContainer, "host detail", path: "a.txt")
        #expect(
            SandboxError.dataProtection(core, path: path, doing: "read", lockedMessage: "locked").code.httpStatus == 403
        )
    }
}
