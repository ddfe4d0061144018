// The benchmark's container: one large file (optional) and small files of 4 KiB in folders of 100,
// every byte deterministic so runs and sizes compare. Half the small files are text (zstd shrinks
// them), half are pseudo-random (stored raw): compression counts on both sides, and no two files
// deduplicate.
import Foundation
import Sandbox

/// The size of each small file: the table (issue 30) used 4 KiB files.
let smallFileSize = 4096

/// The bytes of a container of `bigMiB` MiB and `files` small files.
func containerBytes(bigMiB: Int, files: Int) -> Int { (bigMiB << 20) + files * smallFileSize }

/// The next value of a SplitMix64 sequence (deterministic, does not repeat within a file).
func splitMix(_ state: inout UInt64) -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var value = state
    value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
    value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
    return value ^ (value >> 31)
}

/// Writes `size` bytes that do not repeat (so nothing deduplicates within the file).
func writeLarge(_ path: String, size: Int) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil) else { fatalError("cannot create \(path)") }
    let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    var block = [UInt64](repeating: 0, count: (4 << 20) / 8)
    for _ in 0..<(size / (4 << 20)) {
        for index in block.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            block[index] = state ^ (state >> 29)
        }
        try handle.write(contentsOf: block.withUnsafeBytes { Data($0) })
    }
    try handle.close()
}

/// The contents of small file `index`: text for even indexes, pseudo-random bytes for odd ones.
func smallFileContents(_ index: Int) -> [UInt8] {
    if index % 2 == 1 {
        var state = UInt64(index) &* 0x2545_F491_4F6C_DD1D
        return (0..<(smallFileSize / 8)).flatMap { _ in withUnsafeBytes(of: splitMix(&state)) { Array($0) } }
    }
    var text: [UInt8] = []
    var line = 0
    while text.count < smallFileSize {
        text += Array("small file \(index), line \(line): the quick brown fox jumps over the lazy dog.\n".utf8)
        line += 1
    }
    return Array(text.prefix(smallFileSize))
}

/// Writes `bytes` to a new file at `path` (open, write, close: no Foundation per file, for the
/// million-file container).
func writeSmall(_ path: String, _ bytes: [UInt8]) {
    let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else { fatalError("cannot create \(path): errno \(errno)") }
    let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
    guard written == bytes.count, close(descriptor) == 0 else { fatalError("cannot write \(path): errno \(errno)") }
}

/// Makes the app's container on `home`: a large file of `bigMiB` MiB (none when 0) and `files`
/// small ones in folders of 100.
///
/// - Returns: the container's `Documents` folder.
func makeContainer(home: SandboxHome, bigMiB: Int, files: Int) throws -> String {
    let container = try home.createContainer(for: try AppIdentifier(app))
    let documents = container.hostPath(for: .documents)
    if bigMiB > 0 { try writeLarge(documents + "/large.bin", size: bigMiB << 20) }
    try FileManager.default.createDirectory(atPath: documents + "/small", withIntermediateDirectories: true)
    for index in 0..<files {
        let folder = documents + "/small/\(index / 100)"
        if index % 100 == 0, mkdir(folder, 0o755) != 0 { fatalError("cannot create \(folder): errno \(errno)") }
        writeSmall(folder + "/f\(index).bin", smallFileContents(index))
    }
    return documents
}
