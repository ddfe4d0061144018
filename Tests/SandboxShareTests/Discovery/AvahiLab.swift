import Foundation
import Glibc
import SandboxTesting

/// An `avahi-daemon` of the test's own, inside a ``NetworkNamespace`` and on a D-Bus system bus of
/// its own: the machine's bus and daemon are never touched. The bus (`dbus-daemon` with a
/// permissive system-bus configuration) listens on a socket in the scratch folder, named to
/// clients by `DBUS_SYSTEM_BUS_ADDRESS` (``environment``); the daemon runs in the namespace's
/// mount namespace with the scratch folder bound over `/run` (its pid file and socket), limited
/// to the namespace's end of the veth pair, IPv4 only. Needs root, `ip`, `dbus-daemon`,
/// `avahi-daemon` and `avahi-browse`.
struct AvahiLab {
    let namespace: NetworkNamespace
    let directory: String
    private let bus: RunningProgram
    private let daemon: RunningProgram

    static let tools = ["/usr/bin/dbus-daemon", "/usr/sbin/avahi-daemon", "/usr/bin/avahi-browse", "/bin/mount"]

    static var isAvailable: Bool {
        NetworkNamespace.isAvailable && tools.allSatisfy { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// What a program needs to reach this lab's bus.
    var environment: [String: String] { Self.environment(directory) }

    private static func environment(_ directory: String) -> [String: String] {
        ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(directory)/bus"]
    }

    /// Starts the bus and the daemon in a new namespace, runs `body`, and stops them whether
    /// `body` throws or not.
    static func with<T>(scratch: String, _ body: (AvahiLab) async throws -> T) async throws -> T {
        try await NetworkNamespace.with(scratch: scratch) { namespace in
            let lab = try await start(in: namespace)
            do {
                let result = try await body(lab)
                await lab.stop()
                return result
            } catch {
                await lab.stop()
                throw error
            }
        }
    }

    private static func start(in namespace: NetworkNamespace) async throws -> AvahiLab {
        let directory = namespace.scratch + "/avahi"
        try FileManager.default.createDirectory(atPath: directory + "/run", withIntermediateDirectories: true)
        try busConfiguration(socket: directory + "/bus").write(
            toFile: directory + "/bus.conf", atomically: true, encoding: .utf8)
        try daemonConfiguration(interface: namespace.peerLink).write(
            toFile: directory + "/avahi.conf", atomically: true, encoding: .utf8)
        let bus = try BuiltProgram(path: "/usr/bin/dbus-daemon").start(
            ["--config-file=\(directory)/bus.conf", "--nofork", "--nopidfile"], outputIn: directory)
        guard await eventually(timeout: .seconds(20), { FileManager.default.fileExists(atPath: directory + "/bus") })
        else {
            bus.signal(SIGKILL)
            throw TestFailure("dbus-daemon did not start: \((try? bus.standardError()) ?? "")")  // for the message
        }
        let script = "mount --bind \"$0\" /run && exec /usr/sbin/avahi-daemon --no-drop-root --no-chroot -f \"$1\""
        let daemon: RunningProgram
        do {
            daemon = try namespace.start(
                ["/bin/sh", "-c", script, directory + "/run", directory + "/avahi.conf"],
                environment: environment(directory))
        } catch {
            bus.signal(SIGTERM)
            _ = await bus.exit(timeout: .seconds(10))
            throw error
        }
        let lab = AvahiLab(namespace: namespace, directory: directory, bus: bus, daemon: daemon)
        let ready = await eventually(timeout: .seconds(30)) {
            lab.daemonLog().contains("Server startup complete") || !daemon.isRunning
        }
        guard ready, daemon.isRunning else {
            await lab.stop()
            throw TestFailure("avahi-daemon did not start in \(namespace.name): \(lab.daemonLog())")
        }
        return lab
    }

    /// What the daemon wrote (standard output and error).
    func daemonLog() -> String {
        ((try? daemon.standardOutput()) ?? "") + ((try? daemon.standardError()) ?? "")  // not yet written: empty
    }

    private func stop() async {
        for program in [daemon, bus] {
            program.signal(SIGTERM)
            _ = await program.exit(timeout: .seconds(10))  // killed past it
        }
    }

    /// The services of `type` the daemon resolves now: `avahi-browse -rtp` inside the namespace
    /// (it ends once the daemon's cache is listed).
    func browse(_ type: String) async throws -> [BrowsedService] {
        let output = try await BuiltProgram(path: NetworkNamespace.ip).run(
            Array(namespace.launcher.dropFirst()) + ["/usr/bin/avahi-browse", "-rtp", type],
            environment: environment, outputIn: directory, timeout: .seconds(30))
        guard output.status == 0 else { throw TestFailure("avahi-browse -rtp \(type): \(output.stderr)") }
        return output.stdout.split(separator: "\n").compactMap { BrowsedService(line: String($0)) }
    }

    /// A system bus anyone on this machine may use: only the test's programs know its socket.
    private static func busConfiguration(socket: String) -> String {
        """
        <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
         "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
        <busconfig>
          <type>system</type>
          <listen>unix:path=\(socket)</listen>
          <auth>EXTERNAL</auth>
          <policy context="default">
            <allow user="*"/>
            <allow own="*"/>
            <allow send_destination="*"/>
            <allow receive_sender="*"/>
          </policy>
        </busconfig>
        """
    }

    private static func daemonConfiguration(interface: String) -> String {
        """
        [server]
        use-ipv4=yes
        use-ipv6=no
        allow-interfaces=\(interface)
        enable-dbus=yes
        [wide-area]
        enable-wide-area=no
        [publish]
        publish-hinfo=no
        publish-workstation=no
        """
    }
}

/// One resolved line of `avahi-browse -rtp`:
/// `=;IFACE;PROTO;NAME;TYPE;DOMAIN;HOST;ADDRESS;PORT;TXT…`.
struct BrowsedService: Equatable {
    var name: String
    var type: String
    var address: String
    var port: Int
    /// The TXT strings, unquoted.
    var text: [String]

    init?(line: String) {
        let fields = line.split(separator: ";", omittingEmptySubsequences: false).map(String.init)
        guard fields.count >= 10, fields[0] == "=", let port = Int(fields[8]) else { return nil }
        name = Self.unescaped(fields[3])
        type = fields[4]
        address = fields[7]
        self.port = port
        text = fields[9].split(separator: " ").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\"")) }
    }

    /// avahi-browse's escapes: `\DDD` (a decimal byte) and `\c` (the character).
    static func unescaped(_ text: String) -> String {
        var bytes: [UInt8] = []
        var rest = Substring(text).utf8[...]
        while let first = rest.first {
            rest = rest.dropFirst()
            guard first == UInt8(ascii: "\\"), !rest.isEmpty else {
                bytes.append(first)
                continue
            }
            let digits = rest.prefix(3)
            if digits.count == 3, digits.allSatisfy({ (48...57).contains($0) }),
                let value = UInt8(String(decoding: digits, as: UTF8.self))
            {
                bytes.append(value)
                rest = rest.dropFirst(3)
            } else if let escaped = rest.first {
                bytes.append(escaped)
                rest = rest.dropFirst()
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
