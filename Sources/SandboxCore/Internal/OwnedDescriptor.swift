
import Glibc

/// A file descriptor that is closed exactly once: when its owner goes away or calls ``close()``.
///
/// Non-copyable, so it cannot be closed twice or used after being given up.
struct OwnedDescriptor: ~Copyable {
    let rawValue: CInt

    init(taking rawValue: CInt) {
        self.rawValue = rawValue
    }

    /// Closes the descriptor now. `close(2)` errors are not retried: on Linux the descriptor is
    /// released whatever `close` returns.
    consuming func close() {
        _ = Glibc.close(rawValue)
        discard self
    }

    /// Gives up ownership without closing.
    consuming func release() -> CInt {
        let fd = rawValue
        discard self
        return fd
    }

    deinit {
        _ = Glibc.close(rawValue)
    }
}
