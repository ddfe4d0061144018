import ArgumentParser
import SandboxCLISupport

/// An ``ExtraCommand`` as `sandbox` lists it: its name and abstract in `sandbox --help`; its
/// arguments, whatever they are, go to `sandbox-extras` (``ExtrasExecutable``). `main` hands the
/// command over before parsing; `run` does the same for a command line that reaches the parser.
///
/// One plain struct per command, not one generic type: the runtime finds a generic command's
/// metadata by scanning every protocol conformance in the executable, at each start-up.
protocol ForwardedCommand: ParsableCommand {
    static var command: ExtraCommand { get }
}

extension ForwardedCommand {
    static var configuration: CommandConfiguration {
        CommandConfiguration(commandName: command.name, abstract: command.abstract)
    }

    func run() throws {
        try ExtrasExecutable.replaceProcess(for: Self.command, arguments: CommandLine.arguments)
    }
}

struct ForwardedDownload: ForwardedCommand {
    static let command = ExtraCommand.download
    @Argument(parsing: .captureForPassthrough, help: "The command's arguments.") var arguments: [String] = []
}

struct ForwardedDownloads: ForwardedCommand {
    static let command = ExtraCommand.downloads
    @Argument(parsing: .captureForPassthrough, help: "The command's arguments.") var arguments: [String] = []
}

struct ForwardedFetch: ForwardedCommand {
    static let command = ExtraCommand.fetch
    @Argument(parsing: .captureForPassthrough, help: "The command's arguments.") var arguments: [String] = []
}

struct ForwardedShare: ForwardedCommand {
    static let command = ExtraCommand.share
    @Argument(parsing: .captureForPassthrough, help: "The command's arguments.") var arguments: [String] = []
}

struct ForwardedBackup: ForwardedCommand {
    static let command = ExtraCommand.backup
    @Argument(parsing: .captureForPassthrough, help: "The command's arguments.") var arguments: [String] = []
}

struct ForwardedSnapshots: ForwardedCommand {
    static let command = ExtraCommand.snapshots
    @Argument(parsing: .captureForPassthrough, help: "The command's arguments.") var arguments: [String] = []
}

struct ForwardedCheck: ForwardedCommand {
    static let command = ExtraCommand.check
    @Argument(parsing: .captureForPassthrough, help: "The command's arguments.") var arguments: [String] = []
}

struct ForwardedRestore: ForwardedCommand {
    static let command = ExtraCommand.restore
    @Argument(parsing: .captureForPassthrough, help: "The command's arguments.") var arguments: [String] = []
}

struct ForwardedPrune: ForwardedCommand {
    static let command = ExtraCommand.prune
    @Argument(parsing: .captureForPassthrough, help: "The command's arguments.") var arguments: [String] = []
}

struct ForwardedExport: ForwardedCommand {
    static let command = ExtraCommand.export
    @Argument(parsing: .captureForPassthrough, help: "The command's arguments.") var arguments: [String] = []
}

struct ForwardedImport: ForwardedCommand {
    static let command = ExtraCommand.import
    @Argument(parsing: .captureForPassthrough, help: "The command's arguments.") var arguments: [String] = []
}
