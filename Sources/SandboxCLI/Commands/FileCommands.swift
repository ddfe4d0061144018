import ArgumentParser
import Foundation
import Sandbox
import SandboxCLISupport
import SandboxStore
import SystemPackage

struct ListDirectory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List a directory of a container (directories end in '/').")

    @OptionGroup var app: AppArgument
    @Argument(help: "A directory, relative to the container's home.")
    var path: String = "."
    @Flag(name: .shortAndLong, help: "List everything beneath, as paths.")
    var recursive = false
    @OptionGroup var output: OutputOptions

    func run() throws {
        let container = try app.container()
        let base = try ContainerPath.argument(path)
        // Streamed (issue 31): in the order of the paths sorted, as the walk goes, one `write` per
        // 64 KiB; `statx` only for JSON's size and date (text needs the type `getdents64` gives).
        var printer = ListingPrinter(base: base, json: output.json)
        do {
            try container.root.list(
                at: base, recursive: recursive, prefetchingAttributes: output.json, stoppingAtPathLimit: true,
                order: .byName
            ) { (item, location) throws(SandboxError) in
                try printer.print(item, depth: location.depth)
            }
        } catch {
            // What was listed before the error is shown; a failure to show it is not the error.
            do { try printer.flush() } catch {}
            throw error
        }
        try printer.finish()
        try reportUnlisted(printer.unlisted)
    }

    /// Folders whose contents lie too deep for paths: listed as far as paths go, named on
    /// standard error, status 1 (`du` measures them, `rm --recursive` removes them).
    private func reportUnlisted(_ folders: [String]) throws {
        guard !folders.isEmpty else { return }
        for folder in folders {
            let message =
                "sandbox: the items inside '\(folder)' are nested too deeply to be named by a path (over \(ContainerPath.maximumLength) bytes) and are not listed; `sandbox du` measures them and `sandbox rm --recursive` removes them. [name-too-long]\n"
            StandardStreams.error(message)
        }
        throw ExitCode.failure
    }
}

struct Stat: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "stat", abstract: "Show an item's resource values.")

    @OptionGroup var app: AppArgument
    @Argument(help: "An item, relative to the container's home.")
    var path: String
    @OptionGroup var output: OutputOptions

    func run() throws {
        let container = try app.container()
        let itemPath = try ContainerPath.argument(path)
        guard let attributes = try container.root.attributes(at: itemPath, followingSymlink: false) else {
            throw SandboxError(
                .notFound, "No item at '\(itemPath)' in \(container.identifier). Check the path with `sandbox ls`.",
                path: itemPath.description)
        }
        let excluded = attributes.type == .symlink ? nil : try excludedFromBackup(itemPath, in: container.root)
        var summary = StatSummary(path: itemPath.description, attributes: attributes, excludedFromBackup: excluded)
        if attributes.type != .symlink {
            summary.protection = try ProtectedCat.attribute(of: itemPath, in: container.root)
        }
        if output.json { return try Output.json(summary) }
        try Output.line(summary.text)
    }
}

/// The flag, or `nil` where the file system keeps no extended attributes (unknown, not false).
private func excludedFromBackup(_ path: ContainerPath, in root: ConfinedRoot) throws(SandboxError) -> Bool? {
    do throws(SandboxError) {
        return try root.isExcludedFromBackup(at: path)
    } catch  where error.code == .unsupported {
        return nil
    }
}

struct MakeDirectory: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mkdir", abstract: "Create a directory in a container.")

    @OptionGroup var app: AppArgument
    @Argument(help: "The directory to create, relative to the container's home.")
    var path: String
    @Flag(name: .shortAndLong, help: "Create missing parents too, and accept an existing directory.")
    var parents = false

    func run() throws {
        let container = try app.container()
        let directory = try ContainerPath.argument(path)
        try container.checkPolicy(allowing: .create, at: directory)
        try container.root.createDirectory(at: directory, withIntermediateDirectories: parents)
    }
}

struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "rm", abstract: "Remove an item from a container.")

    @OptionGroup var app: AppArgument
    @Argument(help: "The item to remove, relative to the container's home.")
    var path: String
    @Flag(name: .shortAndLong, help: "Remove a directory and everything in it.")
    var recursive = false

    func run() throws {
        let container = try app.container()
        let itemPath = try ContainerPath.argument(path)
        try container.checkPolicy(allowing: .delete, at: itemPath)
        guard try container.root.removeItem(at: itemPath, recursively: recursive) > 0 else {
            throw SandboxError(
                .notFound, "No item at '\(itemPath)' in \(container.identifier): nothing removed.",
                path: itemPath.description)
        }
    }
}

struct Put: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Copy a host file into a container, atomically and durably.",
        discussion:
            "The file is streamed (never held in memory) and appears at PATH only when complete, private to the user (0600). If PATH is a directory, the file keeps its name. A folder with a default protection class (`sandbox write --default-for-folder`) gets it encrypted with that class, or refuses it while the device is locked."
    )

    @OptionGroup var app: AppArgument
    @Argument(help: "The file on the host.")
    var hostFile: String
    @Argument(help: "Where to put it, relative to the container's home.")
    var path: String

    func run() throws {
        let container = try app.container()
        let destination = try container.root.destination(try ContainerPath.argument(path), naming: hostFile)
        try container.checkPolicy(allowing: .create, at: destination)
        try DataProtection(home: container.home).importFile(
            fromHost: hostFile, to: destination, in: container.root, options: [.atomic, .durable])
    }
}

struct Cat: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cat", abstract: "Write a file of a container to standard output.")

    @OptionGroup var app: AppArgument
    @Argument(help: "The file, relative to the container's home.")
    var path: String

    func run() throws {
        try ProtectedCat.write(ContainerPath.argument(path), of: app.container())
    }
}

struct Move: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mv", abstract: "Move or rename an item within a container.")

    @OptionGroup var items: SourceAndDestination

    func run() throws {
        let (container, source, destination) = try items.resolve()
        try container.checkPolicy(movingFrom: source, to: destination)
        try DataProtection(home: container.home).moveItem(from: source, to: destination, in: container.root)
    }
}

struct Copy: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cp", abstract: "Copy a file or directory within a container.")

    @OptionGroup var items: SourceAndDestination

    func run() throws {
        let (container, source, destination) = try items.resolve()
        try container.checkPolicy(allowing: .create, at: destination)
        try DataProtection(home: container.home).copyItem(from: source, to: destination, in: container.root)
    }
}

/// `<app-id> FROM TO`, as `mv` and `cp` take them.
struct SourceAndDestination: ParsableArguments {
    @OptionGroup var app: AppArgument
    @Argument(help: "The item, relative to the container's home.")
    var from: String
    @Argument(help: "Where it goes; an existing directory receives it under its own name.")
    var to: String

    func resolve() throws(SandboxError) -> (Container, ContainerPath, ContainerPath) {
        let container = try app.container()
        let source = try ContainerPath.argument(from)
        return (container, source, try container.root.destination(try ContainerPath.argument(to), naming: source))
    }
}

struct Exclude: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exclude",
        abstract: "Mark an item as excluded from backups (iOS isExcludedFromBackup).")

    @OptionGroup var app: AppArgument
    @Argument(help: "The item, relative to the container's home.")
    var path: String
    @Flag(help: "Include the item in backups again.")
    var off = false

    func run() throws {
        let container = try app.container()
        let item = try ContainerPath.argument(path)
        try container.checkPolicy(allowing: .modify, at: item)
        try container.root.setExcludedFromBackup(!off, at: item)
    }
}

extension ConfinedRoot {
    /// `path`, or `path/<last name of source>` when `path` is an existing directory (as `cp` and `mv` do).
    func destination(_ path: ContainerPath, naming source: String) throws(SandboxError) -> ContainerPath {
        guard try directoryExists(at: path), let name = source.split(separator: "/").last else { return path }
        return try path.appending(String(name))
    }

    /// `path`, or `path/<last name of source>` when `path` is an existing directory, the name kept byte for byte.
    func destination(_ path: ContainerPath, naming source: ContainerPath) throws(SandboxError) -> ContainerPath {
        guard try directoryExists(at: path), let name = source.lastName else { return path }
        guard !name.isParentReference else {
            throw SandboxError(
                .invalidPath,
                "'\(source)' ends in '..' and so names no single item to put into '\(path)'; write the item's own path.",
                path: source.description)
        }
        return path.appending(name)
    }
}
