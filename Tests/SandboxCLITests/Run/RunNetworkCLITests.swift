import Foundation
import Glibc
import SandboxTesting
import Testing

@Suite("sandbox run --no-network", .enabled(if: landlockIsComplete, "needs Landlock ABI 6: Linux 6.12 or later"))
struct RunNetworkCLITests {
    /// A socket bound to 127.0.0.1 at a free port: TCP, listening (connections wait in its
    /// backlog), or UDP.
    private struct Listener: ~Copyable {
        let fd: Int32
        let port: UInt16

        init(udp: Bool = false) throws {
            let fd = socket(AF_INET, Int32((udp ? SOCK_DGRAM : SOCK_STREAM).rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    bind(fd, address, length) == 0 && (udp || listen(fd, 16) == 0)
                        && getsockname(fd, address, &length) == 0
                }
            }
            guard fd >= 0, bound else {
                if fd >= 0 { close(fd) }
                throw TestFailure("cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
            }
            self.fd = fd
            port = UInt16(bigEndian: address.sin_port)
        }

        deinit { close(fd) }
    }

    @Test("a TCP connect to a loopback server works without the flag and is refused with it")
    func connect() async throws {
        try await RunFixture.with { fixture in
            let listener = try Listener()
            let port = String(listener.port)
            let allowed = try await fixture.run("--", fixture.probe, "connect", port)
            #expect(allowed.stdout == "ok\n", "\(allowed.stderr)")
            let blocked = try await fixture.run("--no-network", "--", fixture.probe, "connect", port)
            #expect(blocked.stdout == "error: Permission denied\n")
            #expect(blocked.status == 1)
            let bind = try await fixture.run("--no-network", "--", fixture.probe, "bind", "0")
            #expect(bind.stdout == "error: Permission denied\n")
            let python = try await fixture.run(
                "--no-network", "--", try RunFixture.system("python3"), "-c",
                "import socket; socket.create_connection(('127.0.0.1', \(port)))")
            #expect(python.status == 1)
            #expect(python.stderr.contains("PermissionError"), "\(python.stderr)")
        }
    }

    /// An abstract Unix socket (no file: a name in the network namespace) listening in this process.
    private struct AbstractListener: ~Copyable {
        let fd: Int32
        let name = "sandbox-run-test-\(UUID().uuidString)"

        init() throws {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = [0] + Array(name.utf8)
            withUnsafeMutableBytes(of: &address.sun_path) { path in
                for (index, byte) in bytes.enumerated() { path[index] = byte }
            }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
            let bound = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                    bind(fd, address, length) == 0 && listen(fd, 16) == 0
                }
            }
            guard fd >= 0, bound else {
                if fd >= 0 { close(fd) }
                throw TestFailure("cannot listen on an abstract socket: \(String(cString: strerror(errno)))")
            }
            self.fd = fd
        }

        deinit { close(fd) }
    }

    @Test("an abstract Unix socket outside the sandbox is unreachable, with the flag or without")
    func abstractSocket() async throws {
        try await RunFixture.with { fixture in
            let listener = try AbstractListener()
            let python = try RunFixture.system("python3")
            let script =
                "import socket; s = socket.socket(socket.AF_UNIX); s.connect('\\0\(listener.name)'); print('connected')"
            for flags in [[], ["--no-network"]] {
                let blocked = try await fixture.run(flags + ["--", python, "-c", script])
                #expect(blocked.status == 1, "\(flags)")
                #expect(blocked.stderr.contains("PermissionError"), "\(flags): \(blocked.stderr)")
            }
        }
    }

    @Test("a UDP datagram and a raw socket are refused with --no-network (a seccomp filter), UDP sent without it")
    func otherSockets() async throws {
        try await RunFixture.with { fixture in
            let listener = try Listener(udp: true)
            let port = String(listener.port)
            let allowed = try await fixture.run("--", fixture.probe, "udp", port)
            #expect(allowed.stdout == "ok\n", "\(allowed.stderr)")
            var buffer = [UInt8](repeating: 0, count: 16)
            #expect(recv(listener.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) == 5)
            let blocked = try await fixture.run("--no-network", "--", fixture.probe, "udp", port)
            #expect(blocked.stdout == "error: Permission denied\n")
            #expect(recv(listener.fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) == -1)
            let python = try await fixture.run(
                "--no-network", "--", try RunFixture.system("python3"), "-c",
                "import socket\nfor family, kind in ((socket.AF_INET, socket.SOCK_DGRAM), (socket.AF_INET, socket.SOCK_RAW), (socket.AF_UNIX, socket.SOCK_STREAM)):\n    try: socket.socket(family, kind); print('made')\n    except PermissionError: print('refused')"
            )
            #expect(python.stdout == "refused\nrefused\nrefused\n", "\(python.stderr)")
        }
    }
}
