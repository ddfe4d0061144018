import ArgumentParser
import Sandbox
import SandboxBackup
import SandboxCLISupport

/// `sandbox export APP OUT.xcappdata`: Xcode's "Download Container…"; `sandbox export APP…
/// --ios-backup DIR`: an iTunes/Finder backup folder of the apps.
struct ExportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ExtraCommand.export.name,
        abstract: ExtraCommand.export.abstract,
        usage: "sandbox export <app> <package>\n       sandbox export <app>... --ios-backup <dir>",
        discussion:
            "The package (AppDataInfo.plist and AppData/) is written beside its name and renamed into place: an interrupted export leaves none. A symlink leading out of the container is refused. With --ios-backup, the apps' domains (AppDomain-<app-id>, and AppDomainGroup-<group-id> for their App Groups; Library/Caches, tmp and the keychain never) are written as an unencrypted iOS backup folder (Manifest.db, Manifest.plist, Info.plist, Status.plist), the same way; DIR must not exist or be an empty folder."
    )

    @Argument(
        help:
            "The app identifier, then the package to write, NAME.xcappdata (it must not exist); with --ios-backup, the app identifiers."
    )
    var arguments: [String]
    @Option(name: .customLong("ios-backup"), help: "Write an iOS backup folder of the apps at this path.")
    var iosBackup: String?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if iosBackup == nil, arguments.count != 2 {
            throw ValidationError("Give an app identifier and a package NAME.xcappdata, or apps and --ios-backup DIR.")
        }
        if iosBackup != nil, arguments.isEmpty { throw ValidationError("Give the apps to export.") }
    }

    func run() async throws {
        if let iosBackup {
            let apps = try arguments.map { (app) throws(SandboxError) in try AppIdentifier(app) }
            let report = try await IOSBackup.export(apps: apps, from: SandboxHome(), to: iosBackup)
            return try IOSBackupOutput.print(report, verb: "exported", output)
        }
        let report = try await XcodeContainer.export(
            app: try AppIdentifier(arguments[0]), from: SandboxHome(), to: arguments[1])
        try XcodeContainerOutput.print(report, verb: "exported", output)
    }
}

/// `sandbox import APP IN.xcappdata`: Xcode's "Replace Container…"; `sandbox import APP
/// --ios-backup DIR`: the app's domain of an iTunes/Finder backup folder.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ExtraCommand.import.name,
        abstract: ExtraCommand.import.abstract,
        usage:
            "sandbox import <app> <package>\n       sandbox import <app> --ios-backup <dir> [--password-file <file>]",
        discussion:
            "The container is rebuilt beside the old one and swapped in at once, as a restore does; the bundle is left as installed. A package holding a link out of AppData, a hard link, a FIFO, socket or device is refused. With --ios-backup, the app's domain (AppDomain-<app-id>) of an iOS backup folder is taken the same way, every row checked first (its path, fileID, MBFile archive, mode, size, a link's target); the backup's other domains are left alone. The domains of the App Groups the app is a member of (AppDomainGroup-<group-id>) go into the groups' containers the same way, every member's users told as for a restore; a group the app is not a member of is skipped and named. An encrypted backup needs --password-file (the backup password on its first line): its Manifest.db and files are decrypted as iOS encrypted them (a wrong password changes nothing; unlocking takes seconds, as on iOS)."
    )

    @OptionGroup var app: AppArgument
    @Argument(help: "The package to import, NAME.xcappdata (not with --ios-backup).") var package: String?
    @Option(name: .customLong("ios-backup"), help: "Import the app's domain of this iOS backup folder.")
    var iosBackup: String?
    @Option(help: "A file holding an encrypted iOS backup's password (its first line); with --ios-backup.")
    var passwordFile: String?
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if (package == nil) == (iosBackup == nil) {
            throw ValidationError("Give a package NAME.xcappdata, or --ios-backup DIR.")
        }
        if passwordFile != nil, iosBackup == nil {
            throw ValidationError("--password-file goes with --ios-backup.")
        }
    }

    func run() async throws {
        if let iosBackup {
            let password = try passwordFile.map { (path) throws(SandboxError) in
                try RepositoryOptions.password(in: path)
            }
            let report = try await IOSBackup.importApp(
                try app.identifier(), into: SandboxHome(), from: iosBackup, password: password)
            return try IOSBackupOutput.print(report, verb: "imported", output)
        }
        let report = try await XcodeContainer.importContainer(
            app: try app.identifier(), into: SandboxHome(), from: package ?? "")
        try XcodeContainerOutput.print(report, verb: "imported", output)
    }
}

enum IOSBackupOutput {
    static func print(_ report: IOSBackupReport, verb: String, _ output: OutputOptions) throws {
        if output.json { return try Output.json(report) }
        for note in report.notes { StandardStreams.error("note: \(note)\n") }
        try Output.line(
            "\(verb) \(report.domains.joined(separator: ", ")) (\(report.folder)): \(report.items) items, \(Output.bytes(report.bytes))"
        )
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
