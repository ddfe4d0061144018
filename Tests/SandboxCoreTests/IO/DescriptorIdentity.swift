import Glibc

/// What an open descriptor number refers to (device and inode), so that a test can tell after a
/// close whether the number still names the same open file.
///
/// Checking only that the number is closed (`fcntl(fd, F_GETFD) == -1`) is a race in a test
/// process: the suites run in parallel and any of them may get the same number from its next open,
/// the moment it is free (the descriptor stress tests open and close thousands).
struct DescriptorIdentity: Equatable {
    let device: UInt64
    let inode: UInt64

    /// What `fd` refers to now; `nil` when the number is not open.
    init?(of fd: CInt) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
    }

    /// Whether `fd` no longer refers to this open file: closed, or reused for another.
    func isGone(from fd: CInt) -> Bool { DescriptorIdentity(of: fd) != self }
}
