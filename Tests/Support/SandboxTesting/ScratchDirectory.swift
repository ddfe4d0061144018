import Foundation
import Glibc

/// A fresh directory for one test, under `$TMPDIR` (or `/tmp`), removed with everything in it
/// when the test's body returns — read-only folders included (a sealed bundle's are 0555).
public struct ScratchDirectory: Sendable {
    /// The directory's absolute path.
    public let path: String

    /// Where scratch directories go: `$TMPDIR` (without a trailing `/`), or `/tmp`.
    public static var base: String {
        var base = ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
        while base.count > 1 && base.hasSuffix("/") { base.removeLast() }
        return base.isEmpty ? "/tmp" : base
    }

    /// Makes `<base>/<prefix>-XXXXXX`.
    ///
    /// - Throws: ``TestFailure`` when `mkdtemp` fails (say, `$TMPDIR` names no writable folder).
    public static func make(prefix: String = "sandbox-tests") throws -> ScratchDirectory {
        let base = base
        var template = Array("\(base)/\(prefix)-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in buffer.baseAddress.flatMap { mkdtemp($0) } }
        guard let made else { throw TestFailure("mkdtemp in '\(base)': \(String(cString: strerror(errno)))") }
        return ScratchDirectory(path: String(cString: made))
    }

    /// Runs `body` with a fresh directory, then removes it.
    public static func with<T>(prefix: String = "sandbox-tests", _ body: (ScratchDirectory) throws -> T) throws -> T {
        let directory = try make(prefix: prefix)
        defer { directory.remove() }
        return try body(directory)
    }

    /// Runs `body` with a fresh directory, then removes it.
    public static func with<T>(
        prefix: String = "sandbox-tests",
        _ body: (ScratchDirectory) async throws -> T
    ) async throws -> T {
        let directory = try make(prefix: prefix)
        defer { directory.remove() }
        return try await body(directory)
    }

    /// `path/relative`.
    public func appending(_ relative: String) -> String { path + "/" + relative }

    /// Removes the directory and everything in it, making folders accessible first (a test may
    /// leave one at 0000 or a sealed bundle's at 0555). Teardown only: what cannot be removed is
    /// left for the system's tmp cleaning.
    public func remove() {
        Self.makeAccessible(path)
        do { try FileManager.default.removeItem(atPath: path) } catch {}  // teardown only: nothing to report to
    }

    /// Gives the owner full access to `path` and every folder beneath it, not following links.
    private static func makeAccessible(_ path: String) {
        var info = stat()
        guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return }
        chmod(path, 0o700)
        // Teardown: a folder that cannot be listed is skipped.
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            makeAccessible(path + "/" + name)
        }
    }
}

/// A failure of the test set-up itself, with what went wrong.
public struct TestFailure: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    /// A failure saying `description`.
    public init(_ description: String) { self.description = description }
}
