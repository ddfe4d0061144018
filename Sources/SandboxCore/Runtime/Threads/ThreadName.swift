import Glibc

/// The kernel's name of a thread (`/proc/<pid>/task/<tid>/comm`), which `ps`, `top` and debuggers
/// show: the one place a thread is named.
///
/// Foundation's `Thread.name` stays inside Foundation on Linux, and neither `pthread_setname_np` nor
/// `prctl(PR_SET_NAME)` is callable from Swift, so the name is written to
/// `/proc/thread-self/comm`. The kernel keeps at most ``maximumLength`` bytes.
package enum ThreadName {
    /// The most bytes of a name the kernel keeps.
    package static let maximumLength = 15

    /// Names the calling thread (the first ``maximumLength`` bytes of `name`). A failure (no
    /// `/proc`) only leaves the thread unnamed.
    package static func setCurrent(_ name: String) {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(maximumLength))
        _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }

    /// The calling thread's name, or `nil` when `/proc` cannot be read.
    package static func current() -> String? {
        let fd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        return String(decoding: bytes[..<count], as: UTF8.self).trimmingSuffix(while: { $0 == "\n" })
    }
}

extension String {
    fileprivate func trimmingSuffix(while predicate: (Character) -> Bool) -> String {
        var text = Substring(self)
        while let last = text.last, predicate(last) { text = text.dropLast() }
        return String(text)
    }
}
