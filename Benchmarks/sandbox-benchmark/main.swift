// Measures SandboxCore against the system tools doing the same job in the same run:
// recursive size vs `du -sb`, enumeration vs `find`, recursive delete vs `rm -rf`, and copying a
// large file vs `cp`. Each case alternates ours and theirs, several runs, and reports medians and
// the ratio ours/theirs in time (≤ 1.0 means at least as fast). Not run by CI.
//
//     swift run -c release sandbox-benchmark [--files N] [--folders N] [--copy-mib N] [--runs N] [--dir PATH]
import ArgumentParser
import BenchmarkSupport
import Foundation
import SandboxCore

struct Configuration: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-benchmark",
        abstract: "SandboxCore against du, find, rm -rf and cp, alternating, with medians and ratios ours/peer."
    )

    @Option(help: "How many small files the tree holds.") var files = 100_000
    @Option(help: "How many folders the files are spread over.") var folders = 1_000
    @Option(name: .customLong("copy-mib"), help: "The size of the copied file, in MiB.") var copyMiB = 1_024
    @Option(help: "How many times each case runs.") var runs = 5
    @Option(name: .customLong("dir"), help: "The folder the scratch tree is made in.") var directory = "/var/tmp"
}

/// Creates `files` small files spread over `folders` folders, with plain system calls.
func buildTree(at path: String, files: Int, folders: Int) {
    mkdir(path, 0o755)
    let payload = [UInt8](repeating: 0x78, count: 100)
    for folder in 0..<folders {
        let directory = "\(path)/d\(folder)"
        mkdir(directory, 0o755)
        for file in stride(from: folder, to: files, by: folders) {
            let fd = open("\(directory)/f\(file)", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            precondition(fd >= 0, "cannot create files under \(path)")
            _ = payload.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
    }
}

func run() throws {
    let configuration = Configuration.parseOrExit()
    var template = Array("\(configuration.directory)/sandbox-bench-XXXXXX".utf8CString)
    guard let made = mkdtemp(&template) else { fatalError("cannot create a directory in \(configuration.directory)") }
    let base = String(cString: made)
    defer { _ = try? timeTool("/bin/rm", ["-rf", base]) }  // teardown only
    let root = try ConfinedRoot(openingDirectoryAt: base)
    print(
        "# sandbox-benchmark: \(configuration.files) files in \(configuration.folders) folders, \(configuration.copyMiB) MiB copy, \(configuration.runs) runs, in \(base) (resolution: \(root.resolution.rawValue))"
    )

    buildTree(at: base + "/tree", files: configuration.files, folders: configuration.folders)
    let tree = try ContainerPath("tree")
    _ = try timeTool("/usr/bin/du", ["-sb", base + "/tree"])  // warm the cache once for both

    var size = Comparison(name: "recursive size", peer: "du -sb")
    var enumeration = Comparison(name: "recursive enumeration", peer: "find")
    var removal = Comparison(name: "recursive delete", peer: "rm -rf")
    for _ in 0..<configuration.runs {
        var total: Int64 = 0
        size.ours.append(try time { total = try root.recursiveSize(at: tree)?.logicalBytes ?? 0 })
        precondition(total == Int64(configuration.files) * 100, "wrong total \(total)")
        size.theirs.append(try timeTool("/usr/bin/du", ["-sb", base + "/tree"]))

        var count = 0
        enumeration.ours.append(
            try time { try root.enumerate(at: tree, recursive: true) { _ throws(SandboxError) in count += 1 } })
        precondition(count == configuration.files + configuration.folders, "wrong count \(count)")
        enumeration.theirs.append(try timeTool("/usr/bin/find", [base + "/tree"]))

        _ = try timeTool("/bin/cp", ["-a", base + "/tree", base + "/a"])
        _ = try timeTool("/bin/cp", ["-a", base + "/tree", base + "/b"])
        // Alternate who goes first: the file system's state (journal, caches) favours one or the other.
        // Each starts from written-back trees (`sync`): without it the first to run removed files
        // whose data was never written (ext4 drops the delayed allocation) while the second waited
        // for that writeback, and the per-run ratio swung between 0.5 and 3.7 with the order.
        var removed = 0
        let oursFirst = removal.ours.count % 2 == 0
        if !oursFirst {
            sync()
            removal.theirs.append(try timeTool("/bin/rm", ["-rf", base + "/b"]))
        }
        sync()
        removal.ours.append(try time { removed = try root.removeItem(at: ContainerPath("a"), recursively: true) })
        precondition(removed == configuration.files + configuration.folders + 1, "removed \(removed)")
        if oursFirst {
            sync()
            removal.theirs.append(try timeTool("/bin/rm", ["-rf", base + "/b"]))
        }
    }

    // A large file of non-zero bytes, copied by both with a warm cache.
    var copy = Comparison(name: "copy \(configuration.copyMiB) MiB file", peer: "cp")
    let chunk = [UInt8]((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
    let big = try ContainerPath("big")
    try root.writeFile(at: big, mebibytes: configuration.copyMiB, chunk: chunk)
    for run in 0..<configuration.runs {
        let ours = try ContainerPath("copy-ours-\(run)")
        if run % 2 == 1 { copy.theirs.append(try timeTool("/bin/cp", [base + "/big", base + "/copy-cp-\(run)"])) }
        copy.ours.append(try time { try root.copyItem(from: big, to: ours) })
        if run % 2 == 0 { copy.theirs.append(try timeTool("/bin/cp", [base + "/big", base + "/copy-cp-\(run)"])) }
        let copied = try root.fileSize(at: ours)
        precondition(copied == Int64(configuration.copyMiB) << 20, "copied \(String(describing: copied)) bytes")
        try root.removeItem(at: ours)
        try root.removeItem(at: ContainerPath("copy-cp-\(run)"))
    }

    print(Comparison.header)
    for row in [size, enumeration, removal, copy] { print(row.line) }
}

extension ConfinedRoot {
    func writeFile(at path: ContainerPath, mebibytes: Int, chunk: [UInt8]) throws {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(chunk.count * 64)
        for _ in 0..<64 { bytes += chunk }
        // 64 MiB at a time through the atomic writer is more than enough for a benchmark's set-up.
        try writeContents([UInt8](), to: path)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: hostPath + "/" + path.description))
        for _ in 0..<(mebibytes / 64) { try handle.write(contentsOf: bytes) }
        for _ in 0..<(mebibytes % 64) { try handle.write(contentsOf: chunk) }
        try handle.close()
    }
}

do {
    try run()
} catch {
    FileHandle.standardError.write(Data("sandbox-benchmark: \(error)\n".utf8))
    exit(1)
}
