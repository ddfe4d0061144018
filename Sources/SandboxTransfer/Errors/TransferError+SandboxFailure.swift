import Sandbox

extension TransferError: SandboxFailure {
    public var codeName: String { code.description }
    public var fileSystemError: SandboxError? { cause as? SandboxError }
}
