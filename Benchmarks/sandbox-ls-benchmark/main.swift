// `sandbox ls --recursive` (and `--json`) against `find -printf` of the same fields, over trees of
// small files in one container's Documents (issue 31): time and peak memory, the command started
// like its peer. Not run by CI.
//
//     swift build --package-path Benchmarks -c release --product sandbox
//     swift build --package-path Benchmarks -c release --product sandbox-ls-benchmark
//     Benchmarks/.build/release/sandbox-ls-benchmark [--sizes 10000,100000,500000] [--runs 3] [--dir PATH]
import ArgumentParser
import BenchmarkSupport
import Foundation
import Sandbox

struct Configuration: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-ls-benchmark",
        abstract: "sandbox ls --recursive (and --json) against find -printf, alternating: time ratio and peak memory."
    )

    @Option(help: "The trees' sizes, in files, comma-separated.") var sizes = "10000,100000,500000"
    @Option(help: "How many times each case runs (after one warm-up run of each).") var runs = 3
    @Option(help: "Files per folder; 100 folders per parent folder.") var filesPerFolder = 100
    @Option(name: .customLong("dir"), help: "The folder the scratch home is made in.") var directory = "/var/tmp"
    @Option(help: "The `sandbox` executable (by default, the one built beside this benchmark).") var sandbox: String?
    @Flag(help: "Also time `ls --recursive --json` against `find -printf '%P %s %T@ %y'`.") var json = false
    @Flag(help: "Leave the trees in place (a later run with the same --dir reuses them).") var keep = false
}

/// `count` files of 100 B–4 KiB (sizes drawn from a fixed sequence) under `path`: folders of
/// `perFolder` files, 100 such folders per parent folder, with plain system calls.
func buildTree(at path: String, count: Int, perFolder: Int) {
    let payload = [UInt8](repeating: 0x78, count: 4096)
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mkdir(path, 0o755)
    for folder in 0..<(count + perFolder - 1) / perFolder {
        let parent = "\(path)/p\(folder / 100)"
        let directory = "\(parent)/d\(folder % 100)"
        if folder % 100 == 0 { mkdir(parent, 0o755) }
        mkdir(directory, 0o755)
        for file in folder * perFolder..<min(count, (folder + 1) * perFolder) {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let size = 100 + Int((state >> 33) % 3997)
            let fd = open("\(directory)/file-\(file).dat", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            precondition(fd >= 0, "cannot create files under \(path)")
            _ = payload.withUnsafeBytes { write(fd, $0.baseAddress, size) }
            close(fd)
        }
    }
}

/// The peak resident memory of one run of `program`, in KiB, as GNU time reports it: a process
/// spawned by this one would count this one's memory in its own `ru_maxrss` (a child's starts at
/// what its parent held), so a small process, `/usr/bin/time`, starts it.
func peakKiB(_ program: (String, [String])) throws -> Int {
    let report = FileManager.default.temporaryDirectory.appendingPathComponent("sandbox-ls-benchmark-\(getpid()).time")
        .path
    defer { unlink(report) }
    _ = try timeTool("/usr/bin/time", ["-f", "%M", "-o", report, program.0] + program.1)
    let text = try String(contentsOfFile: report, encoding: .utf8)
    guard let kib = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
        fatalError("/usr/bin/time reported '\(text)' (apt-get install time)")
    }
    return kib
}

/// A row: both sides' median times, the median of the per-run ratios, each side's peak memory.
struct Row {
    var name: String
    var ours: [Double] = []
    var theirs: [Double] = []
    var oursPeak = 0
    var theirsPeak = 0

    var line: String {
        let ratios = zip(ours, theirs).map { $0 / $1 }
        return String(
            format: "| %@ | %.3f s | %.3f s | **%.2f** (%@) | %.1f MiB | %.1f MiB |", name, median(ours),
            median(theirs), median(ratios), ratios.map { String(format: "%.2f", $0) }.joined(separator: ", "),
            Double(oursPeak) / 1024, Double(theirsPeak) / 1024)
    }

    /// Runs both alternately, each going first every other run, after one run of each under
    /// `/usr/bin/time` for its peak memory (which also reads the tree's folders into the cache).
    mutating func measure(runs: Int, ours: (String, [String]), theirs: (String, [String])) throws {
        oursPeak = try peakKiB(ours)
        theirsPeak = try peakKiB(theirs)
        for run in 0..<runs {
            if run % 2 == 1 { self.theirs.append(try timeTool(theirs.0, theirs.1)) }
            self.ours.append(try timeTool(ours.0, ours.1))
            if run % 2 == 0 { self.theirs.append(try timeTool(theirs.0, theirs.1)) }
        }
    }
}

/// The app's container: kept by an earlier run with `--keep`, else made.
func listingContainer(in home: SandboxHome, for app: AppIdentifier) throws(SandboxError) -> Container {
    do {
        return try home.container(for: app)
    } catch  where error.code == .notFound {
        return try home.createContainer(for: app)
    }
}

let options = Configuration.parseOrExit()
let sandbox =
    options.sandbox
    ?? URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
    .appendingPathComponent("sandbox").path
guard access(sandbox, X_OK) == 0 else {
    FileHandle.standardError.write(
        Data("no sandbox at \(sandbox): swift build --package-path Benchmarks -c release --product sandbox\n".utf8))
    exit(1)
}
let sizes = options.sizes.split(separator: ",").compactMap { Int($0) }
let location = options.directory + "/sandbox-ls-benchmark"
let app = try AppIdentifier("com.example.listing")
let home = try SandboxHome(location: location)
let container = try listingContainer(in: home, for: app)
let documents = container.hostPath(for: .documents)
setenv("SANDBOX_HOME", location, 1)

var load = [Double](repeating: 0, count: 3)
getloadavg(&load, 3)
print(
    "sandbox: \(sandbox); \(ProcessInfo.processInfo.activeProcessorCount) cores; load \(String(format: "%.2f", load[0]))"
)
print("| case | ours (median) | find (median) | ratio ours/find (each run) | ours peak | find peak |")
print("|---|---|---|---|---|---|")
for size in sizes {
    let name = "tree-\(size)"
    let tree = documents + "/" + name
    if access(tree, F_OK) != 0 {
        let start = ContinuousClock.now
        buildTree(at: tree, count: size, perFolder: options.filesPerFolder)
        FileHandle.standardError.write(Data("built \(name) in \(ContinuousClock.now - start)\n".utf8))
    }
    var text = Row(name: "`ls --recursive`, \(size) files")
    try text.measure(
        runs: options.runs, ours: (sandbox, ["ls", app.rawValue, "Documents/\(name)", "--recursive"]),
        theirs: (
            "/usr/bin/find",
            [tree, "-mindepth", "1", "(", "-type", "d", "-printf", "%P/\\n", ")", "-o", "-printf", "%P\\n"]
        ))
    print(text.line)
    if options.json {
        var json = Row(name: "`ls --recursive --json`, \(size) files")
        try json.measure(
            runs: options.runs, ours: (sandbox, ["ls", app.rawValue, "Documents/\(name)", "--recursive", "--json"]),
            theirs: ("/usr/bin/find", [tree, "-mindepth", "1", "-printf", "%P %s %T@ %y\\n"]))
        print(json.line)
    }
    if !options.keep { _ = try container.root.removeItem(at: ContainerPath("Documents/\(name)"), recursively: true) }
}
getloadavg(&load, 3)
print("load after: \(String(format: "%.2f", load[0]))")
