import Foundation
import Sandbox
import SandboxTesting

/// A sandbox home with one container in a fresh temporary directory, removed afterwards.
struct TemporaryContainer {
    let scratch: String
    let home: SandboxHome
    let container: Container

    var root: ConfinedRoot { container.root }
    /// The host path of `Documents`, for writing files the way another process would.
    var documents: String { container.hostPath(for: .documents) }

    static let app = "com.example.notes"

    static func with<T>(_ body: (TemporaryContainer) async throws -> T) async throws -> T {
        try await ScratchDirectory.with(prefix: "sandbox-watch") { scratch in
            let home = try SandboxHome(location: scratch.appending("home"))
            let container = try home.createContainer(for: AppIdentifier(app))
            return try await body(TemporaryContainer(scratch: scratch.path, home: home, container: container))
        }
    }

    func path(_ string: String) throws -> ContainerPath { try ContainerPath(string) }
}

/// The open descriptors of this process that a monitor could leak: inotify instances, sockets
/// (its wake-up pair) and directories in the scratch base (its watched folders). Other tests run in
/// parallel in this process and open files of their own, so everything else is left out.
func monitorDescriptors() -> [String: String] {
    let scratch = URL(fileURLWithPath: ScratchDirectory.base).resolvingSymlinksInPath().path + "/"
    return openDescriptors().filter { _, target in
        target.contains("inotify") || target.hasPrefix("socket:") || target.hasPrefix(scratch)
    }
}

/// The open descriptors of this process and what they refer to.
func openDescriptors() -> [String: String] {
    let fm = FileManager.default
    var result: [String: String] = [:]
    for fd in (try? fm.contentsOfDirectory(atPath: "/proc/self/fd")) ?? [] {
        result[fd] = (try? fm.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + fd)) ?? "?"  // closed meanwhile
    }
    return result
}
