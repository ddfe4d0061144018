import ArgumentParser
import Foundation
import Sandbox
import SandboxCLISupport
import SandboxStore
import SandboxWatch

struct Watch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Print the changes in a folder of a container as they happen, until interrupted.",
        discussion: """
            One line per event: added, removed, renamed, modified, ready (a file finished being written), \
            overflow (events were lost; the folder was rescanned), failed, folder-removed, container-replaced \
            (the app was restored: the folder is watched on in the restored container), container-removed (the \
            app was uninstalled). With --json, one object per line with "event" and "path" (and "from" for \
            renamed, "type" for added, removed and renamed, "error" for failed). \
            Runs until SIGINT or SIGTERM; exits non-zero if the folder is removed, 0 when the app is uninstalled.
            """
    )

    @OptionGroup var app: AppArgument
    @Argument(help: "The folder, relative to the container's home.")
    var path: String = "Documents"
    @Flag(inversion: .prefixedNo, help: "Watch subfolders too.")
    var recursive = true
    @Option(help: "Milliseconds a file must stay quiet after closing before it is reported ready.")
    var quietPeriod = 100
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard quietPeriod >= 0 else { throw ValidationError("--quiet-period must be zero or more milliseconds.") }
    }

    func run() async throws {
        let container = try app.container()
        let folder = try ContainerPath.argument(path)
        let stop = CaughtSignals(CaughtSignals.stopping, label: "sandbox.watch.signals")
        let configuration = FolderMonitor.Configuration(recursive: recursive, quietPeriod: .milliseconds(quietPeriod))
        let monitor = try ContainerFolderMonitor(
            watching: folder, of: container, configuration: configuration, description: "sandbox watch \(folder)")
        stop.onSignal { _ in monitor.cancel() }
        StandardStreams.error("Watching \(folder) of \(container.identifier); interrupt to stop.\n")
        var folderRemoved = false
        var uninstalled = false
        do {
            for await event in monitor.events {
                if case .folderRemoved = event { folderRemoved = true }
                if case .containerRemoved = event { uninstalled = true }
                if output.json {
                    try Output.json(EventLine(event, in: folder))
                } else {
                    try Output.line("\(event)")
                }
            }
        } catch {
            monitor.cancel()  // nobody reads on (or standard output failed): stop watching
            throw error
        }
        if uninstalled {
            StandardStreams.error("\(container.identifier) was uninstalled; stopped watching.\n")
            return
        }
        if folderRemoved {
            throw SandboxError(.notFound, "The watched folder '\(folder)' was removed.", path: folder.description)
        }
    }
}

/// One event as `watch --json` prints it; `overflow` and `failed` carry the watched folder's path.
private struct EventLine: Encodable {
    var event: String
    var path: String?
    var from: String?
    var type: String?
    var error: String?

    init(_ event: FolderEvent, in folder: ContainerPath) {
        self.event = event.name
        path = (event.path ?? folder).description
        switch event {
        case .added(_, let isDirectory), .removed(_, let isDirectory):
            type = isDirectory ? "directory" : "file"
        case .renamed(let source, _, let isDirectory):
            from = source.description
            type = isDirectory ? "directory" : "file"
        case .failed(let failure):
            error = failure.description
        case .modified, .ready, .overflow, .folderRemoved, .containerReplaced, .containerRemoved:
            break
        }
    }
}

struct OpenIn: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open-in",
        abstract: "Deliver a host file into an app's Documents/Inbox, as another app's \"Open In…\" would.",
        discussion:
            "Only to an app whose bundle's Info.plist has a document type (CFBundleDocumentTypes) that accepts the file: by its uniform type (LSItemContentTypes, conformance counted) or, without those, by its extension (CFBundleTypeExtensions). The copy appears only when complete; a taken name gets a number (report 2.pdf). Prints the delivered path, then the file's type and whether the app opens documents in place (LSSupportsOpeningDocumentsInPlace)."
    )

    @OptionGroup var app: AppArgument
    @Argument(help: "The file on the host.")
    var hostFile: String
    @OptionGroup var output: OutputOptions

    /// What `open-in --json` prints.
    struct Delivery: Encodable {
        var path: String
        var contentType: String
        var documentType: DocumentType
        var supportsOpeningDocumentsInPlace: Bool?
    }

    func run() throws {
        let container = try app.container()
        let fileName = String(hostFile.split(separator: "/").last ?? Substring(hostFile))
        let accepted = try container.documentType(accepting: fileName)
        let delivered = try Inbox(container: container).deliver(hostFile: hostFile)
        let delivery = Delivery(
            path: delivered.description, contentType: UniformType.identifier(forFileName: fileName),
            documentType: accepted.type, supportsOpeningDocumentsInPlace: accepted.info.supportsOpeningDocumentsInPlace)
        if output.json { return try Output.json(delivery) }
        try Output.line(delivery.path)
        let inPlace = delivery.supportsOpeningDocumentsInPlace == true ? "yes" : "no"
        try Output.line(
            "  type: \(delivery.contentType) (document type \(accepted.type.name.map { "'\($0)'" } ?? "without a name")); "
                + "opens documents in place: \(inPlace)")
    }
}

struct ProcessInbox: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "process-inbox",
        abstract: "Move every item of an app's Inbox into a folder, each exactly once (as the app would at launch).",
        shouldDisplay: false
    )

    @OptionGroup var app: AppArgument
    @Option(help: "The folder to move items into, relative to the container's home.")
    var into: String
    @Option(help: "Milliseconds to wait before handling each item (to test crash safety).")
    var pause = 0

    func run() throws {
        let container = try app.container()
        let destination = try ContainerPath.argument(into)
        try container.checkPolicy(allowing: .create, at: destination)
        try container.root.createDirectory(at: destination, withIntermediateDirectories: true)
        let pause = max(0, pause)
        let report = try Inbox(container: container).processPendingItems { item in
            if pause > 0 { usleep(UInt32(min(pause, 60_000)) * 1000) }
            let target = destination.appending(item.fileName)
            try Output.line("\(item.name) -> \(target)")
            return .move(to: target)
        }
        if let failure = report.failures.first { throw failure.error }
    }
}
