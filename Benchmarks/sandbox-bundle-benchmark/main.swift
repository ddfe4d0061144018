// Measures the signed-bundle checks against `sha256sum` (and, for verification, `openssl dgst
// -sha256`) hashing the same files in the same run:
// verifying an installed bundle (`Container.verifyBundle`, what every app open does) and signing a
// bundle directory (`BundleSigner.sign`), for one large file (throughput) and for many small files
// (per-file cost). Each case alternates ours and theirs, several runs, and reports medians and the
// ratio ours/theirs in time (≤ 1.0 means at least as fast). Not run by CI.
//
// Then `sandbox run APP -- /bin/true` against `/bin/true`: the added start-up time, through the
// library and through the `sandbox` executable (`--sandbox PATH`, default .build/release/sandbox).
//
//     swift run -c release sandbox-bundle-benchmark [--big-mib N] [--files N] [--file-kib N] [--runs N] [--dir PATH]
//         [--run-runs N] [--sandbox PATH]
import ArgumentParser
import BenchmarkSupport
import Foundation
import Sandbox

struct Configuration: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-bundle-benchmark",
        abstract: "Bundle signing and verification against sha256sum and openssl dgst, with medians and ratios."
    )

    @Option(name: .customLong("big-mib"), help: "The size of the one large file, in MiB.") var bigMiB = 512
    @Option(help: "How many small files the second bundle holds.") var files = 5_000
    @Option(name: .customLong("file-kib"), help: "The size of each small file, in KiB.") var fileKiB = 16
    @Option(help: "How many times each case runs.") var runs = 5
    @Option(name: .customLong("dir"), help: "The folder the bundles are made in.") var directory = "/var/tmp"
    @Option(name: .customLong("run-runs"), help: "How many times `sandbox run -- /bin/true` starts.")
    var runRuns = 200
    @Option(help: "The `sandbox` executable for the whole-command `sandbox run` rows (skipped when absent).")
    var sandbox = ".build/release/sandbox"
}

/// Writes `count` files of `size` bytes of varied content under `path`, 100 to a folder; returns
/// their host paths.
func writeFiles(at path: String, count: Int, size: Int, prefix: String) throws -> [String] {
    var paths: [String] = []
    for index in 0..<count {
        let folder = "\(path)/\(prefix)\(index / 100)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let file = "\(folder)/f\(index)"
        guard FileManager.default.createFile(atPath: file, contents: nil) else { fatalError("cannot create \(file)") }
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: file))
        var written = 0
        while written < size {
            let count = min(size - written, 1 << 20)
            try handle.write(contentsOf: (0..<count).map { UInt8(truncatingIfNeeded: ($0 + written) &* 31 &+ index) })
            written += count
        }
        try handle.close()
        paths.append(file)
    }
    return paths
}

func run() throws {
    let configuration = Configuration.parseOrExit()
    var template = Array("\(configuration.directory)/sandbox-bundle-bench-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot create a directory in \(configuration.directory)") }
    let base = String(cString: made)
    defer { _ = try? timeTool("/bin/rm", ["-rf", base]) }  // teardown only
    print(
        "# sandbox-bundle-benchmark: 1 × \(configuration.bigMiB) MiB and \(configuration.files) × \(configuration.fileKiB) KiB, \(configuration.runs) runs, in \(base)"
    )

    let home = try SandboxHome(location: base + "/home")
    let key = SigningKey()
    try home.trust(key.publicKey)
    let big = try writeFiles(at: base + "/Big.app", count: 1, size: configuration.bigMiB << 20, prefix: "d")
    let small = try writeFiles(
        at: base + "/Small.app", count: configuration.files, size: configuration.fileKiB << 10, prefix: "d")
    var rows: [Comparison] = []
    for (name, files, bytes) in [
        ("Big.app", big, configuration.bigMiB << 20),
        ("Small.app", small, configuration.files * configuration.fileKiB << 10),
    ] {
        let source = base + "/" + name
        let label =
            name == "Big.app"
            ? "1 × \(configuration.bigMiB) MiB" : "\(configuration.files) × \(configuration.fileKiB) KiB"
        _ = try timeTool("/usr/bin/sha256sum", files)  // warm the cache once for both

        let app = try AppIdentifier("com.example.\(name.dropLast(4).lowercased())")
        let identity = BundleIdentity(identifier: app, version: try BundleVersion("1"))
        var sign = Comparison(name: "sign (\(label))", peer: "sha256sum", bytes: bytes)
        try sign.measure(runs: configuration.runs) {
            try BundleSigner.sign(bundleAt: source, with: key, identity: identity)
        } theirs: {
            try timeTool("/usr/bin/sha256sum", files)
        }
        rows.append(sign)

        let container = try home.createContainer(for: app, bundleDirectory: source)
        let installed = files.map { container.hostPath(for: .bundle) + $0.dropFirst(source.count) }
        let keys = try home.trustedKeys()
        _ = try timeTool("/usr/bin/sha256sum", installed)
        // coreutils' portable SHA-256, and OpenSSL's, which uses the CPU's SHA extensions as ours does.
        for (peer, tool, arguments) in [
            ("sha256sum", "/usr/bin/sha256sum", installed),
            ("openssl dgst -sha256", "/usr/bin/openssl", ["dgst", "-sha256"] + installed),
        ] {
            var verify = Comparison(name: "verify installed bundle (\(label))", peer: peer, bytes: bytes)
            try verify.measure(runs: configuration.runs) {
                let report = try container.verifyBundle(trustedKeys: keys)
                precondition(report.bytes == Int64(bytes), "verified \(report.bytes) bytes")
            } theirs: {
                try timeTool(tool, arguments)
            }
            rows.append(verify)
        }
    }

    print(Comparison.header)
    for row in rows { print(row.line) }

    // `sandbox run`: the small-file bundle's app is the verified one; an app with an empty bundle
    // measures the launch alone.
    let empty = try AppIdentifier("com.example.empty")
    try home.createContainer(for: empty)
    let cli = FileManager.default.isExecutableFile(atPath: configuration.sandbox) ? configuration.sandbox : nil
    let runRows = try runOverheadRows(
        home: home, emptyApp: empty, verifiedApp: try AppIdentifier("com.example.small"),
        verifiedLabel: "\(configuration.files) × \(configuration.fileKiB) KiB", runs: configuration.runRuns, cli: cli)
    print("\n| sandbox start-up (\(configuration.runRuns) starts, medians) | peer | ours | peer | added (ratio) |")
    print("|---|---|---|---|---|")
    for row in runRows { print(row) }
    if cli == nil {
        print("(no \(configuration.sandbox): build it with `swift build -c release` for the whole-command rows)")
    }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("sandbox-bundle-benchmark: \(error)\n".utf8))
    exit(1)
}
