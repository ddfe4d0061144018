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
    let cases: [(arguments: [String], name: String, count: Int, peer: (path: String, arguments: [String]))] = [
        (
            ["path", emptyApp.rawValue, "home"],
            "`sandbox path APP home` (the command line's own start-up, for reference)", runs, trueTool
        ),
        (["list"], "`sandbox list` (start-up, issue 16)", runs, ls),
        (
            ["download", "--help"],
            "`sandbox download --help` (handed to `sandbox-extras`: both start-ups)", max(runs / 4, 5), trueTool
        ),
        (
            ["run", emptyApp.rawValue, "--", "/bin/true"],
            "`sandbox run APP -- /bin/true`, whole command (empty bundle)", runs, trueTool
        ),
        (
            ["run", verifiedApp.rawValue, "--", "/bin/true"],
            "`sandbox run APP -- /bin/true`, whole command (\(verifiedLabel) bundle verified)", 5, trueTool
        ),
    ]
    for (arguments, name, count, peer) in cases {
        var command = Comparison(name: name, peer: peer.path)
        try command.measure(runs: count) {
            _ = try timeTool(cli, arguments)
        } theirs: {
            try timeTool(peer.path, peer.arguments)
        }
        rows.append(
            overheadLine(
                name, peer: ([peer.path] + peer.arguments).joined(separator: " "), ours: command.ours,
                theirs: command.theirs))
    }
    return rows
}
