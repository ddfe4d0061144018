import ArgumentParser
import Sandbox

/// The app argument that most commands take first.
package struct AppArgument: ParsableArguments {
    @Argument(help: "The app identifier, reverse-DNS (e.g. com.example.notes).")
    package var app: String

    package init() {}

    package func identifier() throws(SandboxError) -> AppIdentifier { try AppIdentifier(app) }

    /// Opens the device home and the app's container.
    package func container() throws(SandboxError) -> Container {
        try SandboxHome().container(for: identifier())
    }
}

/// `--json` for commands that print data.
package struct OutputOptions: ParsableArguments {
    @Flag(help: "Print machine-readable JSON instead of text.")
    package var json = false

    package init() {}
}
