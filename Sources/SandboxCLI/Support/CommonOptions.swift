import ArgumentParser
import Sandbox

/// The app argument that most commands take first.
struct AppArgument: ParsableArguments {
    @Argument(help: "The app identifier, reverse-DNS (e.g. com.example.notes).")
    var app: String

    func identifier() throws(SandboxError) -> AppIdentifier { try AppIdentifier(app) }

    /// Opens the device home and the app's container.
    func container() throws(SandboxError) -> Container {
        try SandboxHome().container(for: identifier())
    }
}

/// `--json` for commands that print data.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print machine-readable JSON instead of text.")
    var json = false
}
