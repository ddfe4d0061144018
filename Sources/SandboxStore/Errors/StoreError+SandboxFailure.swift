import Sandbox

extension StoreError: SandboxFailure {
    /// The code's stable spelling, e.g. `rolled-back` or the core's `not-found`.
    public var codeName: String { code.description }

    /// The core's error when the file system caused this failure (the ``Cause/fileSystem(_:)`` cause).
    public var fileSystemError: SandboxError? {
        if case .fileSystem(let error) = cause { return error }
        return nil
    }
}
