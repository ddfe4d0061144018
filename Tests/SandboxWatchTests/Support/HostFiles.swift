import Foundation
import Glibc

/// File operations on host paths with plain system calls, the way another program writes into a
/// container. Each returns the instant `close(2)` returned.
enum HostFiles {
    struct Failure: Error, CustomStringConvertible {
        var call: String
        var path: String
        var code: Int32
        var description: String { "\(call) \(path): \(String(cString: strerror(code)))" }
    }

    /// Creates (or truncates) `path`, writes `bytes`, closes it.
    @discardableResult
    static func write(
        _ path: String, _ bytes: [UInt8] = Array("hello\n".utf8), append: Bool = false
    ) throws -> ContinuousClock.Instant {
        let fd = try open(path, O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC))
        try writeAll(fd, bytes, path)
        return try close(fd, path)
    }

    static func open(_ path: String, _ flags: Int32) throws -> Int32 {
        let fd = Glibc.open(path, flags | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(call: "open", path: path, code: errno) }
        return fd
    }

    static func writeAll(_ fd: Int32, _ bytes: [UInt8], _ path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            guard count > 0 else { throw Failure(call: "write", path: path, code: errno) }
            offset += count
        }
    }

    @discardableResult
    static func close(_ fd: Int32, _ path: String) throws -> ContinuousClock.Instant {
        guard Glibc.close(fd) == 0 else { throw Failure(call: "close", path: path, code: errno) }
        return .now
    }

    static func rename(_ from: String, _ to: String) throws {
        guard Glibc.rename(from, to) == 0 else { throw Failure(call: "rename", path: from, code: errno) }
    }

    static func mkdir(_ path: String) throws {
        guard Glibc.mkdir(path, 0o755) == 0 else { throw Failure(call: "mkdir", path: path, code: errno) }
    }

    static func unlink(_ path: String) throws {
        guard Glibc.unlink(path) == 0 else { throw Failure(call: "unlink", path: path, code: errno) }
    }

    static func rmdir(_ path: String) throws {
        guard Glibc.rmdir(path) == 0 else { throw Failure(call: "rmdir", path: path, code: errno) }
    }
}

extension HostFiles {
    /// `path` (a directory's host path) joined with a name given as raw bytes, which need not be UTF-8.
    static func rawPath(_ directory: String, _ name: [UInt8]) -> [CChar] {
        (Array(directory.utf8) + [UInt8(ascii: "/")] + name + [0]).map { CChar(bitPattern: $0) }
    }

    /// Creates a file whose name is raw bytes, writes `bytes`, closes it.
    static func write(in directory: String, rawName name: [UInt8], _ bytes: [UInt8] = Array("hello\n".utf8)) throws {
        let path = rawPath(directory, name)
        let fd = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure(call: "open", path: directory, code: errno) }
        try writeAll(fd, bytes, directory)
        try close(fd, directory)
    }

    /// Creates a directory whose name is raw bytes.
    static func mkdir(in directory: String, rawName name: [UInt8]) throws {
        guard Glibc.mkdir(rawPath(directory, name), 0o755) == 0 else {
            throw Failure(call: "mkdir", path: directory, code: errno)
        }
    }

    static func symlink(_ target: String, at path: String) throws {
        guard Glibc.symlink(target, path) == 0 else { throw Failure(call: "symlink", path: path, code: errno) }
    }
}

extension HostFiles {
    /// Builds a chain of `depth` folders named `name` inside `directory`, with `mkdirat` and
    /// `openat` one level at a time (the chain may be far deeper than a path can name).
    static func mkdirChain(in directory: String, depth: Int, name: String = "d") throws {
        var fd = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw Failure(call: "open", path: directory, code: errno) }
        defer { Glibc.close(fd) }
        for _ in 0..<depth {
            guard mkdirat(fd, name, 0o755) == 0 else { throw Failure(call: "mkdirat", path: directory, code: errno) }
            let next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard next >= 0 else { throw Failure(call: "openat", path: directory, code: errno) }
            Glibc.close(fd)
            fd = next
        }
    }
}
