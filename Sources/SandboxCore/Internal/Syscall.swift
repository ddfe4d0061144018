import Glibc
import SystemPackage

/// Runs a system call that returns -1 and sets `errno` on failure, retrying `EINTR`.
///
/// Every call in the core goes through here, so that `EINTR` handling lives in one place.
@inline(__always)
package func retryingEINTR<T: FixedWidthInteger>(_ body: () -> T) -> Result<T, Errno> {
    while true {
        let result = body()
        if result != -1 { return .success(result) }
        let error = Errno(rawValue: errno)
        if error != .interrupted { return .failure(error) }
    }
}

/// Runs the system call `name` on `path` as ``retryingEINTR(_:)`` does; in debug builds, a fault
/// injected by tests with ``FaultInjection`` can stand in for it (see there).
@inline(__always)
package func retryingEINTR<T: FixedWidthInteger>(
    _ name: String, path: @autoclosure () -> String, _ body: () -> T
) -> Result<T, Errno> {
    #if DEBUG
        retryingEINTR { FaultInjection.intercept(name, path: path, body) }
    #else
        retryingEINTR(body)
    #endif
}

/// Runs a system call and throws a ``SandboxError`` naming `path` on failure.
///
/// In debug builds, a fault injected by tests with ``FaultInjection`` can stand in for the call.
@inline(__always)
package func syscall<T: FixedWidthInteger>(
    _ name: String,
    path: @autoclosure () -> String,
    file: String = #fileID,
    line: Int = #line,
    _ body: () -> T
) throws(SandboxError) -> T {
    switch retryingEINTR(name, path: path(), body) {
    case .success(let value): return value
    case .failure(let error): throw .systemCall(name, errno: error, path: path(), file: file, line: line)
    }
}
