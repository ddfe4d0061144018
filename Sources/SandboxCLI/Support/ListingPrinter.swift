import Foundation
import Sandbox
import SandboxCLISupport

/// Prints `ls` as the walk goes (issue 31): a line per item — its path below the listed folder,
/// each name escaped as ``FileName/description`` shows it, `/` after a directory — or, with
/// `--json`, the elements of one JSON array (``ItemSummary``), all through one buffer written every
/// 64 KiB. The items come in name order, each directory's contents right after it, so a directory's
/// rendered path is kept while the walk is inside it and each line is that path and a name.
struct ListingPrinter {
    private var output = BufferedOutput()
    private let json: Bool
    /// What goes before an item's path below the listed folder to make its container path (JSON).
    private let basePrefix: String
    /// The rendered path of the directory the walk is in, below the listed folder, with its `/`.
    private var prefix: [UInt8] = []
    /// Where `prefix` ended before each of its directories was added.
    private var prefixStarts: [Int] = []
    /// The last directory printed that the walk will enter, rendered with its `/`.
    private var lastDirectory: [UInt8] = []
    private let encoder = JSONEncoder()
    private var printed = 0
    /// The container paths of folders whose contents lie too deep for paths, to report at the end.
    private(set) var unlisted: [String] = []

    /// A printer of the listing of `base`, as text or JSON.
    init(base: ContainerPath, json: Bool) {
        self.json = json
        basePrefix = base.isRoot ? "" : base.description + "/"
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        if json { output.bytes.append(UInt8(ascii: "[")) }
    }

    /// Prints `item`, met `depth` levels below the listed folder (0: directly inside it).
    ///
    /// - Throws: the error writing standard output; ``SandboxError/Code/invalidArgument`` for an item
    ///   JSON cannot hold.
    mutating func print(_ item: ListedItem, depth: Int) throws(SandboxError) {
        // Name order walks each directory right after its own item: one level deeper is the
        // directory printed last; shallower, the directories left.
        if depth > prefixStarts.count {
            prefixStarts.append(prefix.count)
            prefix += lastDirectory
        }
        while depth < prefixStarts.count { prefix.removeSubrange(prefixStarts.removeLast()...) }
        let isDirectory = item.type == .directory
        if json {
            try printJSON(item)
        } else {
            output.bytes += prefix
            FileName.appendDescription(of: item.name, count: item.nameLength, to: &output.bytes)
            if isDirectory { output.bytes.append(UInt8(ascii: "/")) }
            output.bytes.append(UInt8(ascii: "\n"))
        }
        if isDirectory {
            lastDirectory.removeAll(keepingCapacity: true)
            FileName.appendDescription(of: item.name, count: item.nameLength, to: &lastDirectory)
            lastDirectory.append(UInt8(ascii: "/"))
        }
        if item.contentsBeyondPathLimit { unlisted.append(path(of: item)) }
        try output.flushIfFull()
    }

    /// Ends the listing (the JSON array's `]`) and writes what is left.
    ///
    /// - Throws: the error writing standard output.
    mutating func finish() throws(SandboxError) {
        if json { output.bytes += Array("]\n".utf8) }
        try output.flush()
    }

    /// Writes what was printed so far (a listing cut short by an error shows what it reached).
    ///
    /// - Throws: the error writing standard output.
    mutating func flush() throws(SandboxError) {
        try output.flush()
    }

    /// The item's container path, as ``ContainerPath/description`` shows it.
    private func path(of item: ListedItem) -> String {
        var rendered = prefix
        FileName.appendDescription(of: item.name, count: item.nameLength, to: &rendered)
        return basePrefix + String(decoding: rendered, as: UTF8.self)
    }

    private mutating func printJSON(_ item: ListedItem) throws(SandboxError) {
        let name = item.fileName
        let path = path(of: item)
        let summary = ItemSummary(
            name: name.string ?? name.description, path: path, type: item.type, attributes: item.attributes)
        do {
            let encoded = try encoder.encode(summary)
            if printed > 0 { output.bytes.append(UInt8(ascii: ",")) }
            output.bytes += encoded
            printed += 1
        } catch {
            throw SandboxError(
                .invalidArgument, "'\(path)' could not be written as JSON.", path: path, underlying: .wrapping(error))
        }
    }
}
