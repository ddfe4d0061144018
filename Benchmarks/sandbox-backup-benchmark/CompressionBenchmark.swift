// `--compression`: zstd per blob (SandboxBackup's BlobCompression, issue 30) against the `zstd -3`
// CLI (Debian's `zstd`, which must be installed) on the same data: a text corpus (the uncompressed
// files of /usr/share/doc, concatenated) and random bytes. Ours compresses blob by blob in memory,
// each blob alone (what a backup stores); the CLI compresses the whole file, one thread (`-T1`),
// its output to /dev/null. Throughput is of the uncompressed bytes; the ratio is stored/plain.
import BenchmarkSupport
import Foundation
import Sandbox
@_spi(Benchmarking) import SandboxBackup

/// Runs the comparison on `corpusMiB` MiB of each kind of data, cut into blobs of `blobKiB` KiB.
func compressionBenchmark(corpusMiB: Int, blobKiB: Int, runs: Int, base: String) throws {
    let zstd = "/usr/bin/zstd"
    guard FileManager.default.isExecutableFile(atPath: zstd) else { fatalError("install zstd (apt-get install zstd)") }
    print("# --compression: \(corpusMiB) MiB each, blobs of \(blobKiB) KiB, \(runs) runs, in \(base)")
    let text = base + "/text.bin"
    try writeTextCorpus(text, size: corpusMiB << 20)
    let random = base + "/random.bin"
    try writeLarge(random, size: corpusMiB << 20)
    var rows: [Comparison] = []
    var ratios: [String] = []
    for (name, path) in [("text", text), ("random", random)] {
        let data = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let blobs = stride(from: 0, to: data.count, by: blobKiB << 10).map {
            Array(data[$0..<min($0 + (blobKiB << 10), data.count)])
        }
        var compression = BlobCompressionEntryPoints()
        var stored: [[UInt8]?] = []
        var compress = Comparison(name: "compress \(name)", peer: "zstd -3 -T1", bytes: data.count)
        try compress.measure(runs: runs) {
            stored = blobs.map { blob in blob.withUnsafeBytes { compression.compress($0) } }
        } theirs: {
            try timeTool(zstd, ["-3", "-T1", "-q", "-c", path])
        }
        rows.append(compress)
        _ = try timeTool(zstd, ["-3", "-T1", "-q", "-f", path, "-o", path + ".zst"])
        // Checked once, untimed: every compressed blob reads back to its plaintext.
        for (blob, frame) in zip(blobs, stored) {
            guard let frame else { continue }
            let plain = try frame.withUnsafeBytes { bytes throws(SandboxError) in
                try compression.decompress(bytes, uncompressedLength: blob.count, blob: name)
            }
            guard plain == blob else { fatalError("a \(name) blob did not round-trip") }
        }
        if stored.contains(where: { $0 != nil }) {
            var decompress = Comparison(name: "decompress \(name)", peer: "zstd -d", bytes: data.count)
            try decompress.measure(runs: runs) {
                for (blob, frame) in zip(blobs, stored) {
                    guard let frame else { continue }
                    _ = try frame.withUnsafeBytes { bytes throws(SandboxError) in
                        try compression.decompress(bytes, uncompressedLength: blob.count, blob: name)
                    }
                }
            } theirs: {
                try timeTool(zstd, ["-d", "-q", "-c", path + ".zst"])
            }
            rows.append(decompress)
        }
        let ours = zip(blobs, stored).reduce(0) { $0 + ($1.1?.count ?? $1.0.count) }
        let theirs = try FileManager.default.attributesOfItem(atPath: path + ".zst")[.size] as? Int ?? 0
        let compressed = stored.count(where: { $0 != nil })
        ratios.append(
            "| \(name) | "
                + String(
                    format: "%.3f (%d of %d blobs compressed) | %.3f |", Double(ours) / Double(data.count), compressed,
                    blobs.count, Double(theirs) / Double(data.count)))
        if name == "random" {
            // What a first guess from each blob's first 64 KiB would cost, against the full try.
            let probe = median(
                (0..<runs).map { _ in
                    time {
                        for blob in blobs { _ = blob.prefix(64 << 10).withUnsafeBytes { compression.compress($0) } }
                    }
                })
            ratios.append(
                String(
                    format: "| random, 64 KiB probe per blob | %.3f s, against %.3f s for the full try |", probe,
                    median(compress.ours)))
        }
    }
    print(Comparison.header)
    for row in rows { print(row.line) }
    print("\n| data | ours: stored/plain | zstd -3: whole file |\n|---|---|---|")
    for line in ratios { print(line) }
}

/// Writes `size` bytes of the uncompressed files under /usr/share/doc, concatenated (repeated
/// when there are fewer).
func writeTextCorpus(_ path: String, size: Int) throws {
    let compressed: Set<String> = ["gz", "bz2", "xz", "zst", "lz4", "zip", "png", "jpg"]
    var corpus = Data()
    let enumerator = FileManager.default.enumerator(atPath: "/usr/share/doc")
    while corpus.count < size, let relative = enumerator?.nextObject() as? String {
        let file = "/usr/share/doc/" + relative
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isDirectory), !isDirectory.boolValue,
            !compressed.contains((relative as NSString).pathExtension),
            let contents = FileManager.default.contents(atPath: file)
        else { continue }
        corpus.append(contents)
    }
    guard !corpus.isEmpty else { fatalError("no uncompressed files under /usr/share/doc") }
    var text = Data()
    while text.count < size { text.append(corpus.prefix(size - text.count)) }
    try text.write(to: URL(fileURLWithPath: path))
}
