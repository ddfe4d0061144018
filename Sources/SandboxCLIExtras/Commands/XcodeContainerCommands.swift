import ArgumentParser
import Sandbox
import SandboxBackup
import SandboxCLISupport

/// `sandbox export APP OUT.xcappdata`: Xcode's "Download Container…".
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ExtraCommand.export.name,
        abstract: ExtraCommand.export.abstract,
        discussion:
            "The package (AppDataInfo.plist and AppData/) is written beside its name and renamed into place: an interrupted export leaves none. A symlink leading out of the container is refused."
    )

    @OptionGroup var app: AppArgument
    @Argument(help: "The package to write, NAME.xcappdata (it must not exist).") var package: String
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let report = try await XcodeContainer.export(app: try app.identifier(), from: SandboxHome(), to: package)
        try XcodeContainerOutput.print(report, verb: "exported", output)
    }
}

/// `sandbox import APP IN.xcappdata`: Xcode's "Replace Container…".
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ExtraCommand.import.name,
        abstract: ExtraCommand.import.abstract,
        discussion:
            "The container is rebuilt beside the old one and swapped in at once, as a restore does; the bundle is left as installed. A package holding a link out of AppData, a hard link, a FIFO, socket or device is refused."
    )

    @OptionGroup var app: AppArgument
    @Argument(help: "The package to import, NAME.xcappdata.") var package: String
    @OptionGroup var output: OutputOptions

    func run() async throws {
        let report = try await XcodeContainer.importContainer(
            app: try app.identifier(), into: SandboxHome(), from: package)
        try XcodeContainerOutput.print(report, verb: "imported", output)
    }
}

enum XcodeContainerOutput {
    static func print(_ report: XcodeContainerReport, verb: String, _ output: OutputOptions) throws {
        if output.json { return try Output.json(report) }
        for note in report.notes { StandardStreams.error("note: \(note)\n") }
        try Output.line(
            "\(verb) \(report.app) (\(report.package)): \(report.items) items, \(Output.bytes(report.bytes))")
    }
}
