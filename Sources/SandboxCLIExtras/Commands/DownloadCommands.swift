import ArgumentParser
import Foundation
import Sandbox
import SandboxCLISupport
import SandboxTransfer

extension DownloadDestination.Folder: ExpressibleByArgument {}

struct Download: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ExtraCommand.download.name,
        abstract: ExtraCommand.download.abstract,
        discussion: """
            The file is named from the server's Content-Disposition (filename*, then filename) or the URL, \
            sanitized, and numbered when the name is taken; the command prints its path. On a terminal a \
            progress bar shows bytes, percent, speed and time left; with --json, one JSON object per line \
            (events resumed, restarted, progress, retry, finished; sizes are "bytes" and "total", an "error" \
            is a code with its "message"). Interrupted (Ctrl-C, or even SIGKILL), \
            the same command continues from the bytes already downloaded, when the server allows it \
            (byte ranges, an uncoded body, and a strong ETag, or a Last-Modified without an ETag).
            """
    )

    @OptionGroup var app: AppArgument
    @Argument(help: "An http or https URL.")
    var url: String
    @Option(name: .customLong("to"), help: "Where the file goes: caches (Library/Caches) or documents.")
    var folder: DownloadDestination.Folder = .caches
    @Option(help: "The SHA-256 the file must have (64 hex digits); checked before the file is kept.")
    var sha256: String?
    @Option(help: ArgumentHelp("Bytes per second at most.", visibility: .hidden))
    var limitRate: Int64?
    @Flag(help: "Hand the download to sandboxd (started if needed) and print its task id at once.")
    var background = false
    @OptionGroup var output: OutputOptions

    func validate() throws {
        guard let parsed = URL(string: url), DownloadRequest.isSupported(parsed) else {
            throw ValidationError("'\(url)' is not an absolute http or https URL.")
        }
        if let limitRate, limitRate <= 0 {
            throw ValidationError("--limit-rate must be a positive number of bytes per second.")
        }
    }

    func run() async throws {
        let container = try app.container()
        guard let address = URL(string: url) else { throw ValidationError("'\(url)' is not a URL.") }
        let digest = try sha256.map { hex throws(SandboxError) in try ExpectedDigest(.sha256, hex: hex) }
        if background {
            let request = DownloadRequest(
                url: address, expectedDigest: digest, destination: DownloadDestination(folder: folder))
            return try await BackgroundCommands.submit(app: app.identifier(), request: request, json: output.json)
        }
        var configuration = DownloadSession.Configuration.standard
        configuration.rateLimit = limitRate
        // One session per URL, so that downloads of different URLs run at once and a re-run continues.
        let session = try DownloadSession(
            identifier: DownloadSession.identifier(for: address, prefix: "cli-"), container: container,
            configuration: configuration)
        let request = DownloadRequest(
            url: address, expectedDigest: digest, destination: DownloadDestination(folder: folder))
        let task = try session.downloadTask(continuingOrStarting: request)
        let printer = ProgressPrinter(json: output.json)
        // The download pauses with resume data.
        let stop = CaughtSignals(CaughtSignals.stopping, label: "sandbox.download.signals")
        stop.onSignal { _ in task.cancel(byProducingResumeData: { _ in }) }
        let printing = Task {
            do {
                for await event in session.events where event.task === task {
                    try printer.show(event)
                }
            } catch {
                task.cancel(byProducingResumeData: { _ in })  // nobody reads on: pause, keeping the bytes
                throw error
            }
        }
        task.resume()
        let result = await task.result()
        await session.invalidateAndCancel()  // ends the events, so the printer shows every one of them
        try await printing.value
        printer.end()
        switch result {
        case .success(let outcome):
            let path = outcome.path?.description ?? ""
            if output.json {
                try Output.json(
                    DownloadJSONLine(event: "finished", bytes: outcome.byteCount, path: path, sha256: outcome.digest))
            } else {
                try Output.line(path)
            }
        case .failure(let error):
            if error.code == .cancelled {
                // The library says why a download it could not keep cannot be resumed.
                let text =
                    error.resumeData == nil
                    ? "download stopped: \(error.message)" : "download paused. Run the same command again to continue."
                StandardStreams.error("sandbox: \(text)\n")
                throw ExitCode(130)  // 128 + SIGINT, as a shell reports a command a Ctrl-C ended
            }
            throw error
        }
    }
}

struct Downloads: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ExtraCommand.downloads.name,
        abstract: ExtraCommand.downloads.abstract,
        discussion: """
            States: interrupted, paused (resumable), finishing, completed, cancelled, failed; background \
            downloads (sandboxd's, marked with a B, "background": true in JSON) are suspended, waiting, \
            running, cancelling, completed, failed or cancelled, and interrupted while sandboxd is not \
            running (they are then read from its queue, and the daemon is not started). With --wait, \
            attaches to the CLI's background session and prints its events until every task's outcome \
            (its completed event) was printed; it exits with status 1, naming them on standard error, \
            when a task failed. \
            JSON has one schema for both, named as the download lines are: "bytes" (on disk), "total", \
            and "error" (the error's code) with "message" beside it when known.
            """
    )

    @OptionGroup var app: AppArgument
    @Flag(help: "Print the background downloads' events until each has its outcome; exit 1 if one failed.")
    var wait = false
    @OptionGroup var output: OutputOptions

    func run() async throws {
        if wait { return try await BackgroundCommands.wait(app: app.identifier(), json: output.json) }
        let container = try app.container()
        // The daemon's own download sessions are listed through the daemon, with their stable ids.
        let foreground = try DownloadSession.storedTasks(container: container).filter { !$0.isBackground }
        let (identifier, home) = (try app.identifier(), try SandboxHome())
        var printer = DownloadsPrinter(json: output.json)
        for task in foreground { try printer.print(ListedDownload(task)) }
        let background = try await BackgroundListing.print(identifier, container: container, in: home, to: &printer)
        try printer.finish()
        for notice in background.notices { StandardStreams.error("sandbox: \(notice)\n") }
        if let failure = background.failure { throw failure }
    }
}
