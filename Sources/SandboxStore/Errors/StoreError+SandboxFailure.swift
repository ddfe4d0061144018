import Sandbox

extension StoreError: SandboxFailure {
    public var codeName: String { code.description }

    public var fileSystemError: SandboxError? {
        if case .fileSystem(let error) = cause { return error }
        return nil
    }
}
