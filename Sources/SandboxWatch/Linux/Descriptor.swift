import Glibc

/// A file descriptor closed when it goes out of scope.
struct Descriptor: ~Copyable {
    let rawValue: CInt

    init(taking rawValue: CInt) { self.rawValue = rawValue }

    deinit { close(rawValue) }
}

/// `body` retried while it fails with `EINTR`.
func retryingInterrupts<T: BinaryInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result >= 0 || errno != EINTR { return result }
    }
}
