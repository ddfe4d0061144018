import Glibc

/// A file descriptor that is closed exactly once: when its owner goes away or calls ``close()``.
///
/// Non-copyable, so it cannot be closed twice or used after being given up.
package struct OwnedDescriptor: ~Copyable {
    package let rawValue: CInt

    package init(taking rawValue: CInt) {
        self.rawValue = rawValue
    }

    /// Closes the descriptor now. `close(2)` errors are not retried: on Linux the descriptor is
    /// released whatever `close` returns.
    package consuming func close() {
        _ = Glibc.close(rawValue)
        discard self
    }

    /// Gives up ownership without closing.
    package consuming func release() -> CInt {
        let fd = rawValue
        discard self
        return fd
    }

    deinit {
        _ = Glibc.close(rawValue)
    }
}
