import Foundation
import SandboxTesting

/// A generated tree of files to copy through the server and compare afterwards.
enum FileTree {
    /// Writes `count` files under `root` in nested folders (`count / 100` top folders of up to ten
    /// subfolders), with names that have spaces and non-ASCII letters, sizes from 0 bytes to a few
    /// MiB, and contents from a fixed seed. Returns their paths relative to `root`.
    ///
    /// - Throws: ``TestFailure`` when a file cannot be written.
    @discardableResult
    static func make(at root: String, count: Int) throws -> [String] {
        var generator = SeededGenerator(seed: 0x5eed)
        let folderNames = [
            "plain", "with space", "café", "日本語", "emoji 🎉", "a..b", "Ünïcödé", "x-y_z", "deep", "last one",
        ]
        var paths: [String] = []
        for index in 0..<count {
            let top = folderNames[(index / 100) % folderNames.count] + " \(index / 1000)"
            let sub = "sub \(index / 10 % 10)"
            let name = ["file \(index).bin", "résumé \(index).txt", "名前 \(index)", "n\(index) (copy).dat"][index % 4]
            let relative = "\(top)/\(sub)/\(name)"
            let size: Int =
                switch index % 250 {
                case 0: 3 << 20 + index  // a few MiB, not a round number
                case 1, 2: 0
                default: Int(generator.next() % 40_000)
                }
            let url = URL(fileURLWithPath: root + "/" + relative)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            var bytes = [UInt8](repeating: 0, count: size)
            for offset in stride(from: 0, to: size, by: 8) {
                let word = generator.next()
                for byte in 0..<min(8, size - offset) {
                    bytes[offset + byte] = UInt8(truncatingIfNeeded: word >> (byte * 8))
                }
            }
            guard FileManager.default.createFile(atPath: url.path, contents: Data(bytes)) else {
                throw TestFailure("cannot write \(url.path)")
            }
            paths.append(relative)
        }
        return paths
    }

    /// The files (relative paths) under `root`, recursively, folders left out.
    static func files(under root: String) -> [String] {
        (FileManager.default.subpaths(atPath: root) ?? []).filter { relative in  // no folder: no files
            var directory: ObjCBool = false
            return FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &directory)
                && !directory.boolValue
        }.sorted()
    }

    /// How `copy` differs from `original`: files missing, extra or with other bytes.
    static func differences(between original: String, and copy: String) -> [String] {
        let left = files(under: original)
        let right = files(under: copy)
        var found: [String] = []
        found += Set(left).subtracting(right).sorted().map { "missing: \($0)" }
        found += Set(right).subtracting(left).sorted().map { "extra: \($0)" }
        for relative in Set(left).intersection(right).sorted()
        where FileManager.default.contents(atPath: original + "/" + relative)
            != FileManager.default.contents(atPath: copy + "/" + relative)
        {
            found.append("different bytes: \(relative)")
        }
        return found
    }
}

/// xorshift64: the same bytes on every run.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> UInt64 {
        state ^= state << 13
        state ^= state >> 7
        state ^= state << 17
        return state
    }
}
