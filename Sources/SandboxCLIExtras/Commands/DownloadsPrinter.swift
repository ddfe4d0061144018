import Foundation
import Sandbox
import SandboxCLISupport

/// Prints the rows of `downloads` as they come (issue 31): a header and a line per row, or with
/// `--json` the elements of one JSON array (the bytes `Output.json` would print for the whole
/// array), through one buffer written every 64 KiB — the daemon's tasks arrive a page at a time
/// and are never all in memory.
struct DownloadsPrinter {
    private var output = BufferedOutput()
    private let json: Bool
    private let encoder = JSONEncoder()
    private var printed = 0

    init(json: Bool) {
        self.json = json
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        if json {
            output.bytes.append(UInt8(ascii: "["))
        } else {
            output.bytes += Array("ID\tSTATE\tBYTES\tTOTAL\tURL\tPATH\n".utf8)
        }
    }

    /// Prints `row`.
    ///
    /// - Throws: the error writing standard output; ``/SandboxCore/SandboxError/Code/invalidArgument``
    ///   for a row JSON cannot hold.
    mutating func print(_ row: ListedDownload) throws(SandboxError) {
        if json {
            if printed > 0 { output.bytes.append(UInt8(ascii: ",")) }
            do {
                output.bytes += try encoder.encode(row)
            } catch {
                throw SandboxError(
                    .invalidArgument, "Download \(row.taskIdentifier) cannot be printed as JSON: \(error).",
                    underlying: .wrapping(error))
            }
        } else {
            let line =
                "\(row.background ? "B" : "")\(row.taskIdentifier)\t\(row.state)\t\(row.bytes)\t\(row.total.map(String.init) ?? "?")\t\(row.url)\t\(row.path ?? row.message ?? row.error ?? "")\n"
            output.bytes += Array(line.utf8)
        }
        printed += 1
        try output.flushIfFull()
    }

    /// Ends the listing (the JSON array's `]`) and writes what is left.
    ///
    /// - Throws: the error writing standard output.
    mutating func finish() throws(SandboxError) {
        if json { output.bytes += Array("]\n".utf8) }
        try output.flush()
    }
}
