import Foundation
import Sandbox
import SandboxTesting

/// A sandbox home in a fresh temporary directory, removed when the test's scope ends.
func withTemporaryHome<T>(
    resolution: ConfinedRoot.Resolution = .automatic,
    _ body: (SandboxHome, String) throws -> T
) throws -> T {
    try ScratchDirectory.with(prefix: "sandbox-home") { scratch in
        try body(try SandboxHome(location: scratch.appending("home"), resolution: resolution), scratch.path)
    }
}

/// Writes `count` bytes into `path` of `container`, and returns the path.
@discardableResult
func writeFile(_ container: Container, _ path: String, bytes count: Int) throws -> ContainerPath {
    let target = try ContainerPath(path)
    try container.root.createDirectory(at: target.parent, withIntermediateDirectories: true)
    try container.root.writeContents([UInt8](repeating: 0x61, count: count), to: target)
    return target
}

/// ``withTemporaryHome(resolution:_:)`` for an `async` test.
func withTemporaryHomeAsync<T>(_ body: (SandboxHome, String) async throws -> T) async throws -> T {
    try await ScratchDirectory.with(prefix: "sandbox-home") { scratch in
        try await body(try SandboxHome(location: scratch.appending("home")), scratch.path)
    }
}
