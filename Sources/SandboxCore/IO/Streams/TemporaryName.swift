import Glibc

/// The names of atomic writes' temporary files, `.<name>.sandbox-<random, base 36>`, and the lock
/// that tells a live writer's temporary from one that a dead process left.
///
/// A writer takes an open-file-description lock (`F_OFD_SETLK`) on its named temporary as soon as
/// it has created it and holds it until the file is published or discarded; the kernel drops the
/// lock when the process dies, however it dies. A sweep that can lock a temporary therefore knows
/// that no live writer holds it.
enum TemporaryName {
    /// The most bytes of the target's name kept: with the dot, the marker and 13 random characters,
    /// a temporary name stays within `NAME_MAX` (255 bytes) whatever the target's name.
    static let keptNameBytes = 200
    private static let marker = Array(".sandbox-".utf8)

    /// A fresh temporary name for a file to be published as `name`.
    static func make(for name: FileName) -> FileName {
        var kept = name.bytes
        if kept.count > keptNameBytes {
            var end = keptNameBytes
            // Cut before a whole UTF-8 sequence, so that a name that is text stays text.
            while end > keptNameBytes - 3 && kept[end] & 0xC0 == 0x80 { end -= 1 }
            kept.removeSubrange(end...)
        }
        let random = RandomToken.make()
        return FileName(uncheckedBytes: [UInt8(ascii: ".")] + kept + marker + Array(random.utf8))
    }

    /// Whether `name` has the form of a temporary name: `.<name>.sandbox-<lowercase base 36>`.
    static func matches(_ name: some Collection<UInt8>) -> Bool {
        let bytes = Array(name)
        guard bytes.first == UInt8(ascii: "."), bytes.count > marker.count + 2 else { return false }
        // The last ".sandbox-" that follows a non-empty name.
        for start in stride(from: bytes.count - marker.count - 1, through: 2, by: -1)
        where bytes[start..<(start + marker.count)].elementsEqual(marker) {
            return bytes[(start + marker.count)...].allSatisfy { byte in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
            }
        }
        return false
    }

    /// Marks the temporary open as `fd` (for writing) as held by a live writer.
    ///
    /// Best effort: where the file system has no such locks (some FUSE and network file systems),
    /// a sweep relies on the temporary's age alone.
    static func hold(_ fd: CInt) {
        var lock = wholeFile(F_WRLCK)
        _ = fcntl(fd, setOpenFileLock, &lock)  // see above: failure only weakens the sweep's check
    }

    /// Whether a live writer holds the temporary open as `fd` (for reading). While this returns
    /// `false`, the caller holds a read lock that keeps writers from taking it, until `fd` closes.
    static func isHeld(_ fd: CInt) -> Bool {
        var lock = wholeFile(F_RDLCK)
        if fcntl(fd, setOpenFileLock, &lock) == 0 { return false }
        return errno == EAGAIN || errno == EACCES
    }

    /// `F_OFD_SETLK` (Linux 3.15), which Glibc's module does not export; the same on every
    /// architecture.
    private static let setOpenFileLock: CInt = 37

    private static func wholeFile(_ type: CInt) -> flock {
        var lock = flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = 0
        lock.l_len = 0
        return lock
    }
}
