import Glibc
import SandboxTesting

/// A tmpfs of a given size, mounted on a fresh directory for one test and unmounted when it goes
/// away. Needs root (or CAP_SYS_ADMIN).
final class SmallFileSystem {
    let scratch: ScratchDirectory
    var directory: String { scratch.path }

    /// Whether this process may mount a tmpfs: probed once, by mounting and unmounting one.
    static let canMount: Bool = {
        guard let probe = try? SmallFileSystem(size: "64k") else { return false }
        _ = probe
        return true
    }()

    init(size: String) throws {
        scratch = try ScratchDirectory.make(prefix: "sandbox-io-tmpfs")
        guard mount("tmpfs", scratch.path, "tmpfs", 0, "size=\(size),mode=0755") == 0 else {
            let error = errno
            scratch.remove()
            throw IOTestFailure("mount tmpfs: \(String(cString: strerror(error)))")
        }
    }

    deinit {
        _ = umount2(scratch.path, Int32(MNT_DETACH))
        scratch.remove()
    }

    /// Fills the file system with `name` until a write fails with ENOSPC; returns the bytes written.
    @discardableResult
    func fill(_ name: String) throws -> Int {
        let fd = open(directory + "/" + name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw IOTestFailure("open filler: \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let block = [UInt8](repeating: 0xAB, count: 4096)
        var total = 0
        while true {
            let written = block.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            if written > 0 {
                total += written
                continue
            }
            guard errno == ENOSPC else { throw IOTestFailure("filling: \(String(cString: strerror(errno)))") }
            return total
        }
    }
}
