import Glibc
import SandboxCore
import SandboxTesting
import Testing

/// A fresh container directory for one I/O test (`<scratch>/container`, the rest of the scratch
/// directory holding what processes the test starts print), removed when the fixture goes away.
final class IOFixture {
    /// The scratch directory around the container.
    let scratch: ScratchDirectory
    /// The host path of the container.
    let directory: String
    let root: ConfinedRoot

    init() throws {
        scratch = try ScratchDirectory.make(prefix: "sandbox-io-tests")
        directory = scratch.appending("container")
        guard mkdir(directory, 0o755) == 0 else {
            scratch.remove()
            throw IOTestFailure("mkdir \(directory): \(String(cString: strerror(errno)))")
        }
        do {
            root = try ConfinedRoot(openingDirectoryAt: directory)
        } catch {
            scratch.remove()
            throw error
        }
    }

    deinit {
        scratch.remove()
    }

    /// Runs the crash harness with `arguments` to its end (a hang is killed after the runner's
    /// deadline), its output in the scratch directory.
    func runHarness(_ arguments: [String]) async throws -> ProgramOutput {
        try await startHarness(arguments).finish()
    }

    /// Starts the crash harness with `arguments`, its output in the scratch directory.
    func startHarness(_ arguments: [String]) throws -> RunningProgram {
        try BuiltProgram("sandbox-crash-harness").start(arguments, outputIn: scratch.path)
    }

    /// The host path of `relative`.
    func host(_ relative: String) -> String { directory + "/" + relative }

    /// Writes `bytes` to `relative` through the host (not through the code under test).
    func hostWrite(_ relative: String, _ bytes: [UInt8]) throws {
        let fd = open(host(relative), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw IOTestFailure("open \(relative): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        var done = 0
        try bytes.withUnsafeBytes { buffer in
            while done < buffer.count {
                let written = write(fd, buffer.baseAddress.map { $0 + done }, buffer.count - done)
                guard written > 0 else { throw IOTestFailure("write \(relative): \(String(cString: strerror(errno)))") }
                done += written
            }
        }
    }

    /// The contents of `relative`, read through the host; `nil` if it cannot be opened.
    func hostRead(_ relative: String) -> [UInt8]? {
        hostReadFile(host(relative))
    }

    /// The names in the container's top directory (or `relative`), through the host.
    func hostList(_ relative: String = ".") -> [String] {
        hostListDirectory(relative == "." ? directory : host(relative))
    }

    func hostMakeDirectory(_ relative: String) throws {
        guard mkdir(host(relative), 0o755) == 0 else {
            throw IOTestFailure("mkdir \(relative): \(String(cString: strerror(errno)))")
        }
    }
}

func hostReadFile(_ path: String) -> [UInt8]? {
    let fd = open(path, O_RDONLY | O_CLOEXEC)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var result: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count > 0 else { return count == 0 ? result : nil }
        result.append(contentsOf: buffer[0..<count])
    }
}

func hostListDirectory(_ path: String) -> [String] {
    guard let directory = opendir(path) else { return [] }
    defer { closedir(directory) }
    var names: [String] = []
    while let entry = readdir(directory) {
        let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
            String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
}

/// Removes a directory tree through the host (`rm -rf`).
func removeTree(_ path: String) {
    var info = stat()
    guard lstat(path, &info) == 0 else { return }
    if info.st_mode & S_IFMT == S_IFDIR {
        for name in hostListDirectory(path) { removeTree(path + "/" + name) }
        rmdir(path)
    } else {
        unlink(path)
    }
}

struct IOTestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A validated path, for brevity.
func ioPath(_ string: String) throws -> ContainerPath { try ContainerPath(string) }

/// Deterministic bytes from a seed (SplitMix64), so failures reproduce.
func patternBytes(_ count: Int, seed: UInt64) -> [UInt8] {
    var generator = SeededGenerator(seed: seed)
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { buffer in
        var index = 0
        while index < buffer.count {
            var word = generator.next()
            for _ in 0..<8 where index < buffer.count {
                buffer[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
    }
    return bytes
}

/// Expects `body` to throw a ``SandboxError`` with `code`; returns the error.
@discardableResult
func expectIOError<R>(
    _ code: SandboxError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> R
) -> SandboxError? {
    do {
        _ = try body()
        Issue.record("expected [\(code)], nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as SandboxError {
        #expect(error.code == code, "expected [\(code)], got \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a SandboxError [\(code)], got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// ``expectIOError(_:sourceLocation:_:)`` for async bodies.
@discardableResult
func expectIOError<R>(
    _ code: SandboxError.Code,
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> R
) async -> SandboxError? {
    do {
        _ = try await body()
        Issue.record("expected [\(code)], nothing was thrown", sourceLocation: sourceLocation)
        return nil
    } catch let error as SandboxError {
        #expect(error.code == code, "expected [\(code)], got \(error)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a SandboxError [\(code)], got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

/// Monotonic time in microseconds.
func monotonicMicroseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1_000_000 + now.tv_nsec / 1000
}
