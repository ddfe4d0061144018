import ArgumentParser
import Foundation
import SandboxCLISupport
import SandboxStore
import SystemPackage

extension ProtectionClass: ExpressibleByArgument {}

/// `sandbox passcode set`: old and new passcode from standard input, one a line.
struct PasscodeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passcode",
        abstract: "Set, change or remove the device's passcode (Data Protection).",
        discussion: """
            set reads two lines from standard input: the current passcode (an empty line when none is set) \
            and the new one (an empty line removes the passcode). The passcode is never stored: it wraps the \
            class keys in $SANDBOX_HOME/Device/protection.keybag, together with the device key. The device is \
            unlocked afterwards.
            """
    )

    enum Verb: String, ExpressibleByArgument, CaseIterable { case set }

    @Argument(help: "set.")
    var verb: Verb

    func run() throws {
        let lines = StandardInputLines.read()
        guard lines.count >= 2 else {
            throw SandboxError(
                .invalidValue,
                "Give two lines on standard input: the current passcode (empty when none is set), then the new one.")
        }
        try DataProtection(home: SandboxHome()).setPasscode(lines[1], current: lines[0])
    }
}

/// `sandbox lock`.
struct LockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lock",
        abstract: "Lock the device: files of class complete (and complete-unless-open) cannot be read until unlock.",
        discussion:
            "Files of class until-first-user-authentication stay readable until `sandbox restart`. Without a passcode there is nothing to lock."
    )

    func run() throws {
        guard try DataProtection(home: SandboxHome()).lock() else {
            StandardStreams.error(
                "sandbox: no passcode is set, so nothing is locked; set one with `sandbox passcode set`.\n")
            return
        }
    }
}

/// `sandbox unlock`: the passcode from standard input.
struct UnlockCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Unlock the device with the passcode read from standard input.",
        discussion: """
            The class keys go to the kernel's user keyring, where every process of this user finds them and \
            nothing writes them to disk. Wrong passcodes are counted; from the fifth, further tries wait (1 min, \
            5 min, 15 min, 1 h), as on iOS.
            """
    )

    func run() throws {
        let passcode = StandardInputLines.read().first ?? []
        try DataProtection(home: SandboxHome()).unlock(passcode: passcode)
    }
}

/// `sandbox write <app-id> PATH [--protection CLASS]`: standard input to a file, encrypted by class.
struct ProtectedWrite: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "write",
        abstract: "Write standard input to a file of a container, atomically, encrypted with a protection class.",
        discussion: """
            Without --protection the folder's default class applies (see --default-for-folder), and a folder \
            without one gets a plain file. `sandbox cat` decrypts protected files; `sandbox stat` shows the class.
            """
    )

    @OptionGroup var app: AppArgument
    @Argument(help: "The file (or with --default-for-folder, the folder), relative to the container's home.")
    var path: String
    @Option(help: "complete, complete-unless-open, until-first-user-authentication or none.")
    var protection: ProtectionClass?
    @Flag(help: "Set the folder PATH's default class to --protection instead of writing (none given: remove it).")
    var defaultForFolder = false

    func run() throws {
        let container = try app.container()
        let target = try ContainerPath.argument(path)
        let dataProtection = try DataProtection(home: SandboxHome())
        if defaultForFolder {
            return try dataProtection.setDefaultProtection(protection, forDirectoryAt: target, in: container.root)
        }
        try container.checkPolicy(allowing: .create, at: target)
        let contents = Array(FileHandle.standardInput.readDataToEndOfFile())
        try dataProtection.write(
            contents, to: target, in: container.root, protection: protection, options: [.atomic, .durable])
    }
}

/// `sandbox cat` of a protected file: decrypted, or `protected-data-unavailable` while locked.
enum ProtectedCat {
    /// Writes the file to standard output, decrypting it when it is protected.
    static func write(_ path: ContainerPath, of container: Container) throws {
        let dataProtection = try DataProtection(home: SandboxHome())
        guard try dataProtection.protectionClass(of: path, in: container.root) != nil else {
            _ = try container.root.copyContents(of: path, to: .standardOutput)
            return
        }
        try StandardStreams.output(dataProtection.readContents(of: path, in: container.root))
    }

    /// The class `stat` shows: the file's attribute (`nil` without one, or without attributes).
    static func attribute(of path: ContainerPath, in root: ConfinedRoot) throws(SandboxError) -> String? {
        do throws(SandboxError) {
            return try root.extendedAttribute(named: ProtectionClass.attributeName, at: path).map {
                String(decoding: $0, as: UTF8.self)
            }
        } catch  where error.code == .unsupported {
            return nil
        }
    }
}

/// Standard input as lines of bytes, without their newlines.
enum StandardInputLines {
    static func read() -> [[UInt8]] {
        let data = Array(FileHandle.standardInput.readDataToEndOfFile())
        var lines = data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).map(Array.init)
        if lines.last == [] { lines.removeLast() }
        return lines
    }
}
