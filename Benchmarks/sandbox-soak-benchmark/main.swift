// The soak of the whole system (issue 28) for as long as asked: the harness SandboxSoakTests runs
// for 100 s in CI — apps with a real `sandbox share` under rclone's uploads, background downloads
// through `sandboxd` from nginx, `sandbox watch` and a `sandbox run` program — while restores,
// updates, purges, restarts, locks and SIGKILLs happen at random from the seed. Prints the
// minutes, the operations and faults injected and every invariant violation; exits 1 on any.
//
//     apt-get install -y rclone nginx
//     swift build -c release --product sandbox --product sandbox-extras --product sandboxd
//     swift run --package-path Benchmarks -c release sandbox-soak-benchmark --minutes 30 --seed 42
import ArgumentParser
import Foundation
import SandboxSoak

struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-soak-benchmark",
        abstract: "The whole system under chaos for N minutes; prints operations, faults and violations."
    )

    @Option(help: "How many minutes of chaos.") var minutes = 10.0
    @Option(help: "The seed of every random choice (default: a random one, printed).") var seed: UInt64?
    @Option(help: "How many apps.") var apps = 3
    @Option(help: "The faults: comma-separated names, or all.") var faults = "all"
    @Option(help: "The folder of the built sandbox, sandbox-extras and sandboxd.") var binaries = ".build/release"
    @Option(help: "The most a long-lived process may reach (VmHWM), in MiB.") var memoryLimit = 512
    @Flag(help: "A background download that fails is a violation.") var strictDownloads = false
}

let options = Options.parseOrExit()
guard FileManager.default.isExecutableFile(atPath: options.binaries + "/sandboxd") else {
    print("No sandboxd in \(options.binaries): swift build -c release --product sandboxd (and sandbox, sandbox-extras)")
    exit(2)
}
let seed = options.seed ?? UInt64.random(in: 1...UInt64.max)
print("soak seed: \(seed) (--seed \(seed) repeats the faults)")
do {
    let report = try await Soak.run(
        SoakOptions(
            apps: options.apps, duration: .seconds(options.minutes * 60), seed: seed,
            binaries: URL(fileURLWithPath: options.binaries).standardizedFileURL.path,
            faults: try SoakOptions.faults(parsing: options.faults), memoryLimit: options.memoryLimit << 20,
            downloadsMustComplete: options.strictDownloads))
    print(report.summary)
    exit(report.violations.isEmpty ? 0 : 1)
} catch {
    print("soak: \(error)")
    exit(2)
}
