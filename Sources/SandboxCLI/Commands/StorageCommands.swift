import ArgumentParser
import Sandbox
import SandboxCLISupport

struct DiskUsage: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "du", abstract: "Show the size of each top-level directory of a container, and the total.")

    @OptionGroup var app: AppArgument
    @OptionGroup var output: OutputOptions

    func run() throws {
        let container = try app.container()
        var rows: [UsageRow] = []
        var total = DirectorySize()
        for entry in try container.root.contentsOfDirectory(at: .root).sorted(by: { $0.name < $1.name }) {
            guard let size = try container.root.recursiveSize(at: entry.path) else { continue }
            rows.append(UsageRow(path: entry.name, size: size))
            total = total + size
        }
        if output.json {
            return try Output.json(UsageReport(app: container.identifier.rawValue, entries: rows, total: total))
        }
        try Output.line("LOGICAL\tALLOCATED\tFILES\tPATH")
        for row in rows + [UsageRow(path: "total", size: total)] {
            try Output.line("\(row.logicalBytes)\t\(row.allocatedBytes)\t\(row.files)\t\(row.path)")
        }
    }
}

struct DiskFree: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "df",
        abstract: "Show the device's storage: capacity, free, available, purgeable, and each App Group container.",
        discussion:
            "An app whose purgeable directories cannot be measured is left out of the counts and named on standard error, and the status is 1."
    )

    @OptionGroup var output: OutputOptions

    func run() throws {
        let storage = try SandboxHome().storageValues()
        if output.json {
            try Output.json(storage)
            return try SkippedApps.report(storage.skipped, groups: storage.skippedGroups ?? [])
        }
        let volume = storage.volume
        for (label, value) in [
            ("capacity", volume.capacity), ("free", volume.freeBytes), ("available", volume.availableBytes),
            ("purgeable", storage.purgeableBytes),
            ("available for important usage", storage.availableForImportantUsage),
        ] {
            try Output.line("\(label):\t\(value)\t(\(Output.bytes(value)))")
        }
        try Output.line("nodes:\t\(volume.totalNodes) total, \(volume.freeNodes) free")
        for group in storage.groups {
            try Output.line(
                "group:\(group.group):\t\(group.allocatedBytes)\t(\(Output.bytes(group.allocatedBytes)), purgeable \(group.purgeableBytes))"
            )
        }
        try SkippedApps.report(storage.skipped, groups: storage.skippedGroups ?? [])
    }
}

struct UsageRow: Encodable {
    var path: String
    var logicalBytes: Int64
    var allocatedBytes: Int64
    var files: Int
    var directories: Int

    init(path: String, size: DirectorySize) {
        self.path = path
        logicalBytes = size.logicalBytes
        allocatedBytes = size.allocatedBytes
        files = size.fileCount
        directories = size.directoryCount
    }
}

struct UsageReport: Encodable {
    var app: String
    var entries: [UsageRow]
    var total: DirectorySize
}
