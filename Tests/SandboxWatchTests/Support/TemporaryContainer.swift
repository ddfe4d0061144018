import Foundation
import Sandbox

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
        var template = Array("/tmp/sandbox-watch-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw POSIXError(.EIO) }
        let scratch = String(cString: created)
        defer { try? FileManager.default.removeItem(atPath: scratch) }  // teardown only
        let home = try SandboxHome(location: scratch + "/home")
        let container = try home.createContainer(for: AppIdentifier(app))
        return try await body(TemporaryContainer(scratch: scratch, home: home, container: container))
    }

    func path(_ string: String) throws -> ContainerPath { try ContainerPath(string) }
}

/// Waits until `condition` holds, checking every 5 ms, for at most `timeout`. Tests wait on
/// conditions with generous deadlines, never on fixed sleeps.
func eventually(timeout: Duration = .seconds(10), _ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        guard ContinuousClock.now < deadline else { return false }
        do {
            try await Task.sleep(for: .milliseconds(5))
        } catch {
            return condition()  // cancelled
        }
    }
    return true
}

/// The open descriptors of this process that a monitor could leak: inotify instances, sockets
/// (its wake-up pair) and directories under `/tmp` (its watched folders). Other tests run in
/// parallel in this process and open files of their own, so everything else is left out.
func monitorDescriptors() -> [String: String] {
    openDescriptors().filter { _, target in
        target.contains("inotify") || target.hasPrefix("socket:") || target.hasPrefix("/tmp/")
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
