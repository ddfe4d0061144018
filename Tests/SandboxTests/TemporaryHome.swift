import Foundation
import Sandbox

/// A sandbox home in a fresh temporary directory, removed when the test's scope ends.
func withTemporaryHome<T>(
    resolution: ConfinedRoot.Resolution = .automatic,
    _ body: (SandboxHome, String) throws -> T
) throws -> T {
    var template = Array("/tmp/sandbox-home-XXXXXX".utf8CString)
    guard let created = mkdtemp(&template) else { throw POSIXError(.EIO) }
    let path = String(cString: created)
    defer { try? FileManager.default.removeItem(atPath: path) }  // teardown only
    let home = try SandboxHome(location: path + "/home", resolution: resolution)
    return try body(home, path)
}

/// Writes `count` bytes into `path` of `container`, and returns the path.
@discardableResult
func writeFile(_ container: Container, _ path: String, bytes count: Int) throws -> ContainerPath {
    let target = try ContainerPath(path)
    try container.root.createDirectory(at: target.parent, withIntermediateDirectories: true)
    try container.root.writeContents([UInt8](repeating: 0x61, count: count), to: target)
    return target
}
