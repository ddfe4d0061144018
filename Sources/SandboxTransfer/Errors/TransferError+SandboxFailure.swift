import Sandbox

extension TransferError: SandboxFailure {
    /// The code's stable spelling, e.g. `http-status` or the core's `no-space`.
    public var codeName: String { code.description }
    /// The core's error when the file system caused this failure (the ``cause``, when it is one).
    public var fileSystemError: SandboxError? { cause as? SandboxError }
}
