import Sandbox
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
}
