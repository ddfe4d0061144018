import Glibc

/// Which mount a descriptor is on, as `/proc/self/fdinfo/<fd>` reports it (`mnt_id`).
///
/// `rename(2)` and `link(2)` work only within one mount, even between two bind mounts of the same
/// file system (which share `st_dev`): comparing mounts tells beforehand whether a temporary
/// created in one directory can be renamed into another.
enum MountIdentity {
    /// The mount of `fd`, or `nil` where `/proc` is not available.
    static func of(_ fd: CInt) -> Int? {
        let info = Glibc.open("/proc/self/fdinfo/\(fd)", O_RDONLY | O_CLOEXEC)
        guard info >= 0 else { return nil }
        defer { _ = Glibc.close(info) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let count = buffer.withUnsafeMutableBytes { read(info, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let key = Array("mnt_id:".utf8)
        for line in buffer[0..<count].split(separator: UInt8(ascii: "\n")) where line.starts(with: key) {
            let digits = line.dropFirst(key.count).filter { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }
            return Int(String(decoding: digits, as: UTF8.self))
        }
        return nil
    }

    /// Whether `first` and `second` are known to be on the same mount.
    static func areSame(_ first: CInt, _ second: CInt) -> Bool {
        guard let one = of(first), let other = of(second) else { return false }
        return one == other
    }
}
