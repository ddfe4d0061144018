import ArgumentParser
import Foundation
import Sandbox
import SandboxCLISupport
import SandboxStore

struct Create: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create an app's data and bundle containers.")

    @OptionGroup var app: AppArgument
    @Option(help: "A directory to install as the app's bundle (<Name>.app).")
    var bundle: String?
    @Flag(
        help:
            "Without --bundle: the placeholder bundle's Info.plist declares UIFileSharingEnabled, so `sandbox share` shares the app's Documents (iOS's default, and this one's, is not to)."
    )
    var fileSharing = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if fileSharing, bundle != nil {
            throw ValidationError(
                "--file-sharing is for the placeholder bundle only: a bundle declares UIFileSharingEnabled in its own Info.plist."
            )
        }
    }

    func run() throws {
        let container = try SandboxHome().createContainer(
            for: app.identifier(), bundleDirectory: bundle, fileSharing: fileSharing)
        let summary = ContainerSummary(container)
        if output.json { return try Output.json(summary) }
        try Output.line("Created \(container.identifier)")
        try Output.line("  home:   \(summary.home)")
        try Output.line("  bundle: \(summary.bundle)")
    }
}

struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the installed apps.",
        discussion:
            "Each line is the app and whether it shares files (its bundle's Info.plist sets UIFileSharingEnabled: yes or no; invalid when the Info.plist cannot be read, the reason in --json). An app whose containers cannot be opened is named on standard error and the status is 1; the others are listed."
    )

    @OptionGroup var output: OutputOptions

    func run() throws {
        let opened = try SandboxHome().openContainers()
        let summaries = opened.containers.map(ContainerSummary.init)
        if output.json {
            try Output.json(summaries)
        } else {
            for summary in summaries {
                try Output.line(
                    "\(summary.app)\t\(summary.infoPlistError == nil ? (summary.fileSharing ? "yes" : "no") : "invalid")"
                )
            }
        }
        try SkippedApps.report(opened.skipped)
    }
}

struct PathCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "path",
        abstract: "Print the host path of an app's container directory, or of an App Group's container.",
        discussion:
            "DIRECTORY is one of: \(ContainerDirectory.allCases.map(\.rawValue).joined(separator: ", ")) (default: home), or group:<group-id> for the container of an App Group the app's signed bundle lists (made on first use). The path is checked first: a directory the app replaced with a symbolic link (or removed) is refused, never printed."
    )

    /// A directory of the container, or `group:<group-id>`.
    enum Target: ExpressibleByArgument {
        case directory(ContainerDirectory)
        case group(String)

        init?(argument: String) {
            if argument.hasPrefix("group:") {
                self = .group(String(argument.dropFirst(6)))
            } else if let directory = ContainerDirectory(rawValue: argument) {
                self = .directory(directory)
            } else {
                return nil
            }
        }
    }

    @OptionGroup var app: AppArgument
    @Argument(help: "Which directory, or group:<group-id>.")
    var directory: Target = .directory(.home)
    @OptionGroup var output: OutputOptions

    func run() throws {
        let container = try app.container()
        let (name, path): (String, String)
        switch directory {
        case .directory(let directory):
            (name, path) = (directory.rawValue, try container.resolvedHostPath(for: directory))
        case .group(let raw):
            let group = try container.groupContainer(AppGroupIdentifier(raw))
            (name, path) = ("group:\(group.group)", group.hostPath)
        }
        if output.json {
            return try Output.json(["app": container.identifier.rawValue, "directory": name, "path": path])
        }
        try Output.line(path)
    }
}

extension ContainerDirectory: ExpressibleByArgument {}

struct Uninstall: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninstall", abstract: "Remove an app: its data container and bundle.")

    @OptionGroup var app: AppArgument

    func run() throws {
        try SandboxHome().uninstall(app.identifier())
    }
}

struct Restart: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restart",
        abstract: "Simulate a device restart: empty every container's tmp/ and forget every unlocked class key.",
        discussion:
            "An app whose tmp/ cannot be emptied (replaced by a symbolic link, say) is skipped and named on standard error, and the status is 1; every other app's tmp/ is still emptied."
    )

    @OptionGroup var output: OutputOptions

    func run() throws {
        let home = try SandboxHome()
        let report = try home.restart()
        try DataProtection(home: home).forgetKeysAtRestart()  // until-first-user-authentication too
        if output.json {
            try Output.json(report)
        } else {
            try Output.line(
                "Emptied tmp/ of \(report.containers) container(s): \(report.removedItems) item(s) removed.")
        }
        try SkippedApps.report(report.skipped)
    }
}

struct Purge: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "purge",
        abstract: "Free storage: evict tmp/ then Library/Caches/ contents, least recently used first.",
        discussion:
            "Without --bytes, everything purgeable is evicted. Nothing outside tmp/ and Library/Caches/ (the apps' and the App Groups') is touched. An app whose directories cannot be purged is skipped and named on standard error, and the status is 1; the others are still purged."
    )

    @Option(help: "Free at least this much (a byte count, or with a K, M or G suffix).")
    var bytes: ByteCountArgument?
    @OptionGroup var output: OutputOptions

    func run() throws {
        let report = try SandboxHome().purge(bytes: bytes?.value)
        if output.json {
            try Output.json(report)
        } else {
            for item in report.items { try Output.line("\(item.bytes)\t\(item.owner)\t\(item.path)") }
            try Output.line(
                "Freed \(report.freedBytes) bytes (\(Output.bytes(report.freedBytes))) from \(report.items.count) item(s)."
            )
        }
        try SkippedApps.report(report.skipped, groups: report.skippedGroups ?? [])
    }
}

/// The apps a device-wide command skipped: one line each on standard error, then exit status 1
/// (the rest of the work is done and reported on standard output first).
enum SkippedApps {
    static func report(_ skipped: [SkippedApp], groups: [SkippedGroup] = []) throws {
        guard !skipped.isEmpty || !groups.isEmpty else { return }
        for app in skipped { StandardStreams.error("sandbox: \(app)\n") }
        for group in groups { StandardStreams.error("sandbox: \(group)\n") }
        throw ExitCode.failure
    }
}

/// What `create` and `list --json` print about a container: where it is, and what its bundle's
/// `Info.plist` declares (file sharing, the documents it opens and whether in place).
struct ContainerSummary: Encodable {
    var app: String
    var home: String
    var bundle: String
    /// `UIFileSharingEnabled`.
    var fileSharing: Bool
    /// `LSSupportsOpeningDocumentsInPlace`, when declared.
    var supportsOpeningDocumentsInPlace: Bool?
    /// `CFBundleDocumentTypes`.
    var documentTypes: [DocumentType]
    /// Why the `Info.plist` could not be read (the app then declares nothing).
    var infoPlistError: String?

    init(_ container: Container) {
        app = container.identifier.rawValue
        home = container.homeDirectory
        bundle = container.hostPath(for: .bundle)
        var info = AppBundleInfo.undeclared
        do throws(SandboxError) {
            info = try container.bundleInfo()
        } catch {
            infoPlistError = error.description
        }
        fileSharing = info.fileSharingEnabled
        supportsOpeningDocumentsInPlace = info.supportsOpeningDocumentsInPlace
        documentTypes = info.documentTypes
    }
}
