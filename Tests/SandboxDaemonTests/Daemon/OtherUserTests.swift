import Foundation
import Glibc
import SandboxTesting
import SandboxTransfer
import Testing

/// Another user cannot use this user's daemon: the runtime folder is 0700, and even when a
/// mistake opens the socket to everyone, `SO_PEERCRED` makes the daemon refuse the connection
/// before it reads anything.
@Suite(.serialized) struct OtherUserTests {
    /// A user made for the test with `useradd`, removed afterwards.
    private struct TestUser {
        let name: String
        let uid: UInt32

        static func make() async throws -> TestUser? {
            guard geteuid() == 0 else { return nil }
            let name = "sbdtest\(UInt16.random(in: 1000...65000))"
            let made = try await BuiltProgram(path: "/usr/sbin/useradd").run(
                ["--no-create-home", "--shell", "/usr/sbin/nologin", name], outputIn: NSTemporaryDirectory())
            guard made.status == 0, let entry = getpwnam(name) else {
                throw TestFailure("useradd \(name) failed: \(made.stderr)")
            }
            return TestUser(name: name, uid: entry.pointee.pw_uid)
        }

        func remove() async {
            // Cleanup: a user left behind has no home and no password.
            _ = try? await BuiltProgram(path: "/usr/sbin/userdel").run([name], outputIn: NSTemporaryDirectory())
        }

        /// Runs Python's socket client as this user: connects to `socket`, sends a hello and a
        /// list request, prints what came back or the connection error.
        func client(socket: String, hello: String, in scratch: String) async throws -> ProgramOutput {
            let script = """
                import socket, struct, sys
                def frame(text):
                    body = text.encode()
                    return struct.pack(">I", len(body)) + body
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    s.connect(sys.argv[1])
                except OSError as error:
                    print("connect-error", error.errno); sys.exit(0)
                s.sendall(frame(sys.argv[2]) + frame('{"type":"list","requestID":1}'))
                s.settimeout(10)
                data = b""
                try:
                    while True:
                        chunk = s.recv(65536)
                        if not chunk: break
                        data += chunk
                except socket.timeout:
                    pass
                print("received", data.decode(errors="replace"))
                """
            return try await BuiltProgram(path: "/usr/bin/setpriv").run(
                [
                    "--reuid=\(uid)", "--regid=65534", "--clear-groups", "/usr/bin/python3", "-c", script, socket,
                    hello,
                ], outputIn: scratch)
        }
    }

    @Test func anotherUserIsRefused() async throws {
        guard let user = try await TestUser.make() else {
            print("skipped: making a second user needs root (useradd)")
            return
        }
        do {
            try await refuse(user)
        } catch {
            await user.remove()
            throw error
        }
        await user.remove()
    }

    private func refuse(_ user: TestUser) async throws {
        try await DaemonFixture.with { fixture in
            // A task of this user's (retried while nothing listens on port 9), which the other user
            // must not see.
            let app = try fixture.startApp("s", ["submit", "http://127.0.0.1:9/never"], idleExit: 60)
            #expect(await eventually { (try? app.standardOutput().contains("\"submitted\"")) == true })
            app.signal(SIGKILL)
            _ = await app.exit
            let socket = fixture.paths.socket
            let hello =
                #"{"type":"hello","protocolVersion":1,"hello":{"app":"\#(DaemonFixture.app)","home":"\#(fixture.home.location)","attach":false}}"#
            // The scratch folder must be reachable for the other user's output files and the socket.
            chmod(fixture.scratch.path, 0o755)
            chmod(fixture.runtime, 0o755)
            let closed = try await user.client(socket: socket, hello: hello, in: fixture.scratch.path)
            // EACCES: the 0700 folder.
            #expect(closed.stdout.contains("connect-error 13"), "\(closed.stdout) \(closed.stderr)")
            // A mistake opens the folder and the socket to everyone: the daemon itself refuses.
            chmod(fixture.paths.runtimeDirectory, 0o755)
            chmod(socket, 0o666)
            let refused = try await user.client(socket: socket, hello: hello, in: fixture.scratch.path)
            #expect(refused.stdout.contains("permission-denied"), "\(refused.stdout) \(refused.stderr)")
            #expect(!refused.stdout.contains("\"tasks\""), "the other user got a listing: \(refused.stdout)")
            // This user is still served.
            let again = try await fixture.runApp("s", ["list"])
            #expect(again.status == 0, "\(again.output.stdout)")
        }
    }
}
