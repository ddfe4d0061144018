import Foundation
import SandboxTesting

/// Large generated files for transfer tests: written at run time, never kept in git.
enum LargeFile {
    /// Writes `size` bytes to `path`: a 4 MiB block of seeded noise repeated, each copy stamped
    /// with its index, so a reordered or repeated piece changes the digest.
    ///
    /// - Throws: ``TestFailure`` when the file cannot be written.
    static func write(_ path: String, size: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil),
            let handle = FileHandle(forWritingAtPath: path)
        else { throw TestFailure("cannot create \(path)") }
        defer { try? handle.close() }  // test scaffolding: a failed write was already thrown
        var generator = SeededGenerator(seed: 42)
        let blockSize = 4 << 20
        var block = (0..<blockSize / 8).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }
        var written = 0
        var index: UInt64 = 0
        while written < size {
            withUnsafeBytes(of: index) { stamp in block.replaceSubrange(0..<8, with: stamp) }
            let piece = min(blockSize, size - written)
            do { try handle.write(contentsOf: block.prefix(piece)) } catch {
                throw TestFailure("write \(path): \(error)")
            }
            written += piece
            index += 1
        }
    }

    /// The SHA-256 of each file, from `sha256sum` (hex, in order).
    ///
    /// - Throws: ``TestFailure`` when sha256sum fails.
    static func digests(_ paths: [String], scratch: String) async throws -> [String] {
        let output = try await ExternalTool.run("sha256sum", paths, outputIn: scratch, timeout: .seconds(300))
        guard output.exit == .exited(0) else { throw TestFailure("sha256sum: \(output.stderr)") }
        return output.stdout.split(separator: "\n").map { String($0.prefix(64)) }
    }
}
