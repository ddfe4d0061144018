
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

/// Runs a system call and throws a ``SandboxError`` naming `path` on failure.
@inline(__always)
package func syscall<T: FixedWidthInteger>(
    _ name: String,
    path: @autoclosure () -> String,
    file: String = #fileID,
    line: Int = #line,
    _ body: () -> T
) throws(SandboxError) -> T {
    switch retryingEINTR(body) {
    case .success(let value): return value
    case .failure(let error): throw .systemCall(name, errno: error, path: path(), file: file, line: line)
    }
}
