// The floor swift-argument-parser sets under `sandbox list`'s start-up: startup-floor's listing
// behind a root command with one `list` subcommand and a `--json` flag, parsed by
// swift-argument-parser, linked as `sandbox` is. What it adds over startup-floor is the parser's
// reflection at its first parse (its completion-script check, each argument set's `Mirror`, the
// conformance look-ups): a fixed cost per process, the same with one subcommand as with 43
// (measured: BENCHMARKS.md, issue 16).
import ArgumentParser
// swift-argument-parser uses FoundationEssentials; importing it here, compiled with -static-stdlib,
// gives the link its static libraries (as `sandbox`'s own Foundation import does).
import FoundationEssentials
import Glibc
import StartupFloorListing

@main
struct Root: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "startup-floor-argument-parser", abstract: "The argument parser's start-up floor.",
        subcommands: [ListApps.self])
}

struct ListApps: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "List the app data containers.")

    @Flag(help: "Print JSON.") var json = false

    func run() throws {
        guard let names = containerNames() else { throw ExitCode.failure }
        for name in names { print(json ? "\"\(name)\"" : name) }
    }
}
