// `sandbox run` start-up overhead: starting `/bin/true` confined against starting it directly.
import BenchmarkSupport
import Foundation
import Sandbox

/// A row `| case | peer | ours | theirs | +added ms (ratio) |` from per-run times.
private func overheadLine(_ name: String, peer: String = "/bin/true", ours: [Double], theirs: [Double]) -> String {
    let added = (median(ours) - median(theirs)) * 1000
    return String(
        format: "| %@ | `%@` | %.2f ms | %.2f ms | **+%.2f ms** (%.2f×) |", name, peer, median(ours) * 1000,
        median(theirs) * 1000, added, median(ours) / median(theirs))
}

/// Measures `sandbox run APP -- /bin/true` against `/bin/true`, alternating, `runs` times each:
/// - through the library, the bundle verified once beforehand (what the launch itself adds: the
///   Landlock ruleset, fork, setsid, limits, restrict, exec, wait);
/// - through the `sandbox` executable at `cli` (when given): `sandbox path` (its own start-up, for
///   reference), and `sandbox run` for `emptyApp`, an app with an empty
///   bundle (the whole command: start-up, opening the home, the launch), and for `verifiedApp`, whose
///   bundle's verification is then included; `sandbox list` against `ls` of the home (issue 16's
///   start-up row), and `sandbox download --help`, a command `sandbox` hands to `sandbox-extras`
///   (both executables' start-up).
func runOverheadRows(
    home: SandboxHome, emptyApp: AppIdentifier, verifiedApp: AppIdentifier, verifiedLabel: String, runs: Int,
    cli: String?
) throws -> [String] {
    let launch = try home.prepareRun(emptyApp, command: ["/bin/true"])
    var library = Comparison(name: "library", peer: "/bin/true")
    try library.measure(runs: runs) {
        let exit = try launch.start().waitUntilExit()
        precondition(exit == .exited(0), "sandbox run -- /bin/true: \(exit)")
    } theirs: {
        try timeTool("/bin/true", [])
    }
    var rows = [
        overheadLine(
            "`sandbox run` start-up, library (`ConfinedLaunch.start` + wait; bundle verified beforehand)",
            ours: library.ours, theirs: library.theirs)
    ]
    guard let cli else { return rows }
    setenv("SANDBOX_HOME", home.location, 1)
    let trueTool = (path: "/bin/true", arguments: [String]())
    let ls = (path: "/bin/ls", arguments: [home.location])
    var cases: [StartCase] = [
        StartCase(
            cli, ["path", emptyApp.rawValue, "home"],
            "`sandbox path APP home` (the command line's own start-up, for reference)", runs, trueTool),
        StartCase(cli, ["list"], "`sandbox list` (start-up, issue 16)", runs, ls),
    ]
    // The floors under `sandbox list`, when built beside this benchmark (Benchmarks/Package.swift).
    for (floor, name) in [
        ("startup-floor", "floor: Swift listing the containers' folder, linked as `sandbox`"),
        ("startup-floor-argument-parser", "floor: the same behind swift-argument-parser (`list`)"),
    ] {
        let path = besideThisExecutable(floor)
        if access(path, X_OK) == 0 {
            cases.append(StartCase(path, floor.hasSuffix("parser") ? ["list"] : [], name, runs, ls))
        } else {
            rows.append(
                "| \(name) | (not built: `swift build --package-path Benchmarks -c release --product \(floor)`) | | | |"
            )
        }
    }
    cases += [
        StartCase(
            cli, ["download", "--help"],
            "`sandbox download --help` (handed to `sandbox-extras`: both start-ups)", max(runs / 4, 5), trueTool),
        StartCase(
            cli, ["run", emptyApp.rawValue, "--", "/bin/true"],
            "`sandbox run APP -- /bin/true`, whole command (empty bundle)", runs, trueTool),
        StartCase(
            cli, ["run", verifiedApp.rawValue, "--", "/bin/true"],
            "`sandbox run APP -- /bin/true`, whole command (\(verifiedLabel) bundle verified)", 5, trueTool),
    ]
    for start in cases {
        var command = Comparison(name: start.name, peer: start.peer.path)
        try command.measure(runs: start.count) {
            _ = try timeTool(start.program, start.arguments)
        } theirs: {
            try timeTool(start.peer.path, start.peer.arguments)
        }
        rows.append(
            overheadLine(
                start.name, peer: ([start.peer.path] + start.peer.arguments).joined(separator: " "),
                ours: command.ours, theirs: command.theirs))
    }
    return rows
}

/// One start-up case: `program arguments`, `count` times, against `peer`, alternating.
private struct StartCase {
    var program: String
    var arguments: [String]
    var name: String
    var count: Int
    var peer: (path: String, arguments: [String])

    init(
        _ program: String, _ arguments: [String], _ name: String, _ count: Int,
        _ peer: (path: String, arguments: [String])
    ) {
        (self.program, self.arguments, self.name, self.count, self.peer) = (program, arguments, name, count, peer)
    }
}

/// The path of `name` in this executable's folder.
private func besideThisExecutable(_ name: String) -> String {
    URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        .appendingPathComponent(name).path
}
