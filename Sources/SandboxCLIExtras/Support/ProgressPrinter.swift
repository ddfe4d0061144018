import Foundation
import Glibc
import SandboxCLISupport
import SandboxTransfer
import Synchronization

/// Shows a download's events: a progress bar on a terminal (standard error), JSON lines with
/// `--json` (standard output), nothing but messages otherwise.
final class ProgressPrinter: Sendable {
    private let json: Bool
    private let terminal: Bool
    private let barShown = Mutex(false)

    init(json: Bool) {
        self.json = json
        self.terminal = !json && isatty(STDERR_FILENO) == 1
    }

    /// Shows `event`.
    ///
    /// - Throws: with `--json`, the error of writing standard output (see ``Output/json(_:)``).
    func show(_ event: DownloadEvent) throws {
        let line = DownloadJSONLine(event)
        switch event {
        case .didResume(_, let offset, _):
            try emit(line, "Resuming at \(Output.bytes(offset)).")
        case .didRestart(_, let reason):
            try emit(line, "Starting again from zero: \(reason?.rawValue ?? "the reason was not given").")
        case .willRetry(_, let attempt, let delay, let error):
            try emit(line, "Retrying (attempt \(attempt)) in \(delay): \(error?.message ?? "no error was given")")
        case .didWriteData(_, let progress):
            if json {
                try Output.json(line)
            } else if terminal {
                barShown.withLock { $0 = true }
                StandardStreams.error("\r" + Self.bar(progress) + "\u{1B}[K")
            }
        case .taskIsWaitingForConnectivity:
            try emit(line, "Waiting for the network.")
        case .didFinishDownloading, .didComplete, .didFinishEvents:
            break  // the command prints the finished file and the outcome itself
        }
    }

    /// Ends the progress bar's line.
    func end() {
        if barShown.withLock({ $0 }) { StandardStreams.error("\n") }
    }

    private func emit(_ line: DownloadJSONLine, _ text: String) throws {
        if json {
            try Output.json(line)
        } else {
            end()
            barShown.withLock { $0 = false }
            StandardStreams.error(text + "\n")
        }
    }

    /// `[#########...........]  45.0%  12.0 MiB / 26.7 MiB  3.1 MiB/s  ETA 0:05`
    static func bar(_ progress: TransferProgress) -> String {
        let width = 24
        var parts: [String] = []
        if let fraction = progress.fractionCompleted, let total = progress.totalBytesExpectedToWrite {
            let filled = Int((fraction * Double(width)).rounded(.down))
            parts.append(
                "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]")
            parts.append(String(format: "%5.1f%%", fraction * 100))
            parts.append("\(Output.bytes(progress.totalBytesWritten)) / \(Output.bytes(total))")
        } else {
            parts.append(Output.bytes(progress.totalBytesWritten))
        }
        if let rate = progress.bytesPerSecond { parts.append("\(Output.bytes(Int64(rate)))/s") }
        if let seconds = progress.secondsRemaining {
            let total = Int(seconds.rounded(.up))
            parts.append(String(format: "ETA %d:%02d", total / 60, total % 60))
        }
        return parts.joined(separator: "  ")
    }
}
