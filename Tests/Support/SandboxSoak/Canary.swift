import Foundation
import SandboxTransferTesting

/// A tree outside the device's home that nothing may change: every `sandbox run` program tries
/// to write into it, and its digest (every path and every file's content) is compared at the end.
enum Canary {
    /// Makes `count` files of random content under `path`.
    static func make(at path: String, count: Int, seed: UInt64) throws {
        for index in 0..<count {
            let folder = path + "/d\(index % 4)"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try Data(TestData.bytes(512 + index * 97, seed: seed &+ UInt64(index))).write(
                to: URL(fileURLWithPath: folder + "/f\(index)"))
        }
    }

    /// The SHA-256 of the sorted paths under `path` with each file's own SHA-256.
    static func digest(of path: String) -> String {
        let paths = (FileManager.default.subpaths(atPath: path) ?? []).sorted()  // unreadable: no paths, a new digest
        let lines = paths.map { relative -> String in
            let contents = FileManager.default.contents(atPath: path + "/" + relative)
            return relative + " " + (contents.map { TestData.sha256($0) } ?? "-")
        }
        return TestData.sha256(Array(lines.joined(separator: "\n").utf8))
    }
}
