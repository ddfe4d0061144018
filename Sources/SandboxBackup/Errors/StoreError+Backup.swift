import SandboxCore
import SandboxStore

/// Runs a store call, turning its `StoreError` into the ``SandboxCore/SandboxError`` this module
/// throws: a file-system failure keeps the core's error, any other keeps the store's code spelling.
func storeCall<T>(_ body: () throws(StoreError) -> T) throws(SandboxError) -> T {
    do {
        return try body()
    } catch {
        if let core = error.fileSystemError { throw core }
        throw SandboxError(
            code: SandboxError.Code(error.codeName), message: error.message, path: error.path,
            location: error.location)
    }
}
