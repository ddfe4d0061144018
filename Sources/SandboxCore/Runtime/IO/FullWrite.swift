import Glibc
import SystemPackage

/// Writes all of a buffer to a descriptor: the one loop for the short writes `write(2)` and
/// `pwrite(2)` may make, with `EINTR` retried. A call that writes nothing counts as `ENOSPC`
/// (it would otherwise loop forever).
package enum FullWrite {
    /// Writes all of `bytes` to `fd`: at `offset` with `pwrite`, or at the current position with
    /// `write` when `offset` is `nil`.
    ///
    /// - Throws: ``SandboxError`` for the failing `write` or `pwrite` on `path`, such as
    ///   ``SandboxError/Code/noSpace`` (also for a write of zero bytes).
    package static func write(
        _ bytes: UnsafeRawBufferPointer, to fd: CInt, atOffset offset: Int64? = nil, path: @autoclosure () -> String
    ) throws(SandboxError) {
        guard let base = bytes.baseAddress else { return }
        let name = offset == nil ? "write" : "pwrite"
        var done = 0
        while done < bytes.count {
            let written = try syscall(name, path: path()) {
                if let offset {
                    pwrite(fd, base + done, bytes.count - done, off_t(offset + Int64(done)))
                } else {
                    Glibc.write(fd, base + done, bytes.count - done)
                }
            }
            if written == 0 { throw .systemCall(name, errno: .noSpace, path: path()) }
            done += written
        }
    }
}
