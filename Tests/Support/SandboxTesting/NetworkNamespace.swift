import Foundation
import Glibc

/// A network namespace joined to this one by a veth pair, for tests that take a link down: the
/// host end `hostLink` has `hostAddress`, the namespace's end has ``peerAddress``. Names are unique
/// per run (pid and a random tag); ``with(_:)`` deletes the namespace and the pair on every exit.
/// Needs root and iproute2's `ip`. Shared by the daemon's network-loss tests and the share's
/// discovery tests.
public struct NetworkNamespace: Sendable {
    /// The namespace's name (`ip netns`).
    public let name: String
    /// The host's end of the veth pair.
    public let hostLink: String
    /// The namespace's end of the veth pair.
    public let peerLink: String
    /// The address of ``hostLink``.
    public let hostAddress: String
    /// The address of ``peerLink``, inside the namespace.
    public let peerAddress: String
    /// Where the programs started in it write their output.
    public let scratch: String

    /// iproute2's `ip`.
    public static let ip = "/usr/sbin/ip"

    /// Whether the test can make namespaces: root, with `ip` installed.
    public static var isAvailable: Bool { geteuid() == 0 && FileManager.default.isExecutableFile(atPath: ip) }

    /// Makes a namespace and its link, runs `body`, and deletes them whether `body` throws or not.
    public static func with<T>(scratch: String, _ body: (NetworkNamespace) async throws -> T) async throws -> T {
        let tag = String(UInt32.random(in: 0..<0xFF_FFFF), radix: 16)
        let net = "10.\(200 + Int(getpid() % 50)).\(Int.random(in: 0..<256)).\(4 * Int.random(in: 0..<64))"
        let prefix = net.split(separator: ".").dropLast().joined(separator: ".")
        let last = Int(net.split(separator: ".").last ?? "0") ?? 0
        let namespace = NetworkNamespace(
            name: "sbd-\(getpid())-\(tag)", hostLink: "sbh\(tag)", peerLink: "sbn\(tag)",
            hostAddress: "\(prefix).\(last + 1)", peerAddress: "\(prefix).\(last + 2)", scratch: scratch)
        do {
            try await namespace.create()
            let result = try await body(namespace)
            await namespace.delete()
            return result
        } catch {
            await namespace.delete()
            throw error
        }
    }

    private func create() async throws {
        try await ip(["netns", "add", name])
        try await ip(["link", "add", hostLink, "type", "veth", "peer", "name", peerLink])
        try await ip(["link", "set", peerLink, "netns", name])
        try await ip(["addr", "add", "\(hostAddress)/30", "dev", hostLink])
        try await ip(["link", "set", hostLink, "up"])
        try await ip(["-n", name, "addr", "add", "\(peerAddress)/30", "dev", peerLink])
        try await ip(["-n", name, "link", "set", peerLink, "up"])
        try await ip(["-n", name, "link", "set", "lo", "up"])
    }

    /// Deletes the namespace (which deletes the pair); a pair left by a half-made namespace goes too.
    private func delete() async {
        _ = try? await ip(["netns", "del", name])  // not made: nothing to delete
        _ = try? await ip(["link", "del", hostLink])  // went with the namespace
    }

    /// Takes the host end of the link down or up.
    public func setLink(up: Bool) async throws {
        try await ip(["link", "set", hostLink, up ? "up" : "down"])
    }

    /// Starts `arguments` inside the namespace, with `environment` added to this process's.
    public func start(_ arguments: [String], environment: [String: String] = [:]) throws -> RunningProgram {
        try BuiltProgram(path: Self.ip).start(
            Array(launcher.dropFirst()) + arguments, environment: environment, outputIn: scratch)
    }

    /// The command that runs a program inside the namespace: `ip netns exec NAME`, to put first.
    public var launcher: [String] { [Self.ip, "netns", "exec", name] }

    @discardableResult
    private func ip(_ arguments: [String]) async throws -> ProgramOutput {
        let output = try await BuiltProgram(path: Self.ip).run(arguments, outputIn: scratch, timeout: .seconds(30))
        guard output.status == 0 else {
            throw TestFailure("ip \(arguments.joined(separator: " ")) failed: \(output.stderr)")
        }
        return output
    }
}
