import ArgumentParser
import Sandbox
import SandboxCLISupport

/// `sandbox users`: what uses an app's containers right now — the registrations lifecycle
/// operations coordinate with (and name when they refuse or wait).
struct Users: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users",
        abstract: "List the live users of an app's containers: shares, sandboxd, watchers, programs under sandbox run.",
        discussion:
            "Restore, update, uninstall, restart, lock and backup tell these users first, wait for some to let go, and refuse while a program runs under sandbox run (README: Live users and lifecycle operations). A user that died is not listed."
    )

    @OptionGroup var app: AppArgument
    @OptionGroup var output: OutputOptions

    func run() throws {
        let presenters = try SandboxHome().presenters(of: app.identifier())
        if output.json { return try Output.json(presenters) }
        for presenter in presenters {
            let held = presenter.held.isEmpty ? "" : " holding \(presenter.held.joined(separator: ", "))"
            try Output.line("\(presenter.kind.rawValue)\t\(presenter.pid)\t\(presenter.description)\(held)")
        }
    }
}
