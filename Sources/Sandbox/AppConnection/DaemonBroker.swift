import CSandboxShims
import Foundation
import Glibc
import SandboxCore
import SystemPackage

/// Hands a confined program connections to `sandboxd` that are bound to its app — launchd's
/// bootstrap port, for `sandbox run` and for the programs the daemon relaunches.
///
/// A confined program cannot create a Unix socket (its seccomp filter refuses `socket(AF_UNIX)`),
/// so it cannot reach the daemon — or any other service of the user — by itself. Instead it
/// inherits ``programEnd`` (as descriptor 3, named by `SANDBOX_DAEMON_BROKER_FD`): a
/// `SOCK_SEQPACKET` socket pair whose other end this broker serves on a thread of its own. For each
/// request (any one-byte message) the broker connects to the daemon, sends the ``AppBinding`` it
/// was made with, waits for the daemon's `bound`, and passes the connected socket back
/// (`SCM_RIGHTS`); or it sends `error\t<code>\t<message>`. What the program then says on the
/// connection, the daemon checks against the binding.
///
/// The broker ends when every copy of ``programEnd`` is closed (the program and what it started
/// have exited).
package final class DaemonBroker: Sendable {
    /// The end the program inherits. Pass it to
    /// ``ConfinedLaunch/start(standardInput:standardOutput:standardError:passing:)``, then
    /// ``closeProgramEnd()``.
    package let programEnd: FileDescriptor
    private let brokerEnd: CInt
    private let binding: AppBinding
    private let location: DaemonLocation
    private let startsDaemon: Bool
    private let environment: [String: String]

    /// A broker for `binding`, reaching the daemon of `location`.
    ///
    /// - Parameters:
    ///   - startsDaemon: whether a request starts the daemon when it is not running (`sandbox run`);
    ///     the daemon's own broker does not.
    ///   - environment: the daemon's environment if a request starts it.
    /// - Throws: ``/SandboxCore/SandboxError`` (cause `socketpair`) when the pair cannot be made.
    package init(
        binding: AppBinding, location: DaemonLocation, startsDaemon: Bool, environment: [String: String]
    ) throws(SandboxError) {
        var pair: [CInt] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw .systemCall("socketpair", errno: Errno(rawValue: errno), path: location.socket)
        }
        brokerEnd = pair[0]
        programEnd = FileDescriptor(rawValue: pair[1])
        self.binding = binding
        self.location = location
        self.startsDaemon = startsDaemon
        self.environment = environment
        // A program that stops reading its answers cannot hold the broker's thread for long.
        DaemonRendezvous.setTimeouts(brokerEnd, DaemonRendezvous.ioTimeout)
    }

    /// Starts serving on a thread of its own; it ends once the program's end is closed everywhere.
    /// Call it after ``closeProgramEnd()``'s copy went to the program, or the thread never ends.
    /// When no thread can be started, the broker's end is closed: the program's requests then fail
    /// at once (end of file) rather than waiting for an answer that would never come.
    package func serve() {
        do {
            try OwnedThread.detached(name: "sandbox-broker") { [self] in run() }
        } catch {
            Glibc.close(brokerEnd)
        }
    }

    /// Closes this process's copy of ``programEnd`` (the program keeps its own).
    package func closeProgramEnd() {
        Glibc.close(programEnd.rawValue)
    }

    private func run() {
        var request = [UInt8](repeating: 0, count: 16)
        while true {
            let got = request.withUnsafeMutableBytes { recv(brokerEnd, $0.baseAddress, $0.count, 0) }
            if got < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            if got <= 0 { break }  // every copy of the program's end is closed
            answer()
        }
        Glibc.close(brokerEnd)
    }

    /// Serves one request: a bound connection, or the reason there is none.
    private func answer() {
        do throws(SandboxError) {
            let fd = try boundConnection()
            defer { Glibc.close(fd) }
            _ = Array("ok".utf8).withUnsafeBytes { csb_send_with_descriptor(brokerEnd, $0.baseAddress, $0.count, fd) }
        } catch {
            let text = Array("error\t\(error.code.rawValue)\t\(error.message)".utf8.prefix(4096))
            _ = text.withUnsafeBytes { csb_send_with_descriptor(brokerEnd, $0.baseAddress, $0.count, -1) }
        }
    }

    /// Connects to the daemon (starting it if allowed) and binds the connection.
    private func boundConnection() throws(SandboxError) -> CInt {
        let fd: CInt
        if startsDaemon {
            fd = try DaemonRendezvous.connectStartingIfNeeded(location, environment: environment)
        } else if let connected = try DaemonRendezvous.connect(location) {
            fd = connected
        } else {
            throw SandboxError(.daemonUnavailable, "sandboxd is not listening on '\(location.socket)'.")
        }
        do throws(SandboxError) {
            let frame = try binding.frame()
            var sent = 0
            while sent < frame.count {
                let count = frame.withUnsafeBytes {
                    send(fd, $0.baseAddress.map { $0 + sent }, frame.count - sent, Int32(MSG_NOSIGNAL))
                }
                if count < 0 && errno == EINTR { continue }
                guard count > 0 else {
                    throw SandboxError(
                        .daemonUnavailable, "Could not send the binding to sandboxd (\(Errno(rawValue: errno))).",
                        path: location.socket)
                }
                sent += count
            }
            try AppBinding.readAnswer(from: fd)
        } catch {
            Glibc.close(fd)
            throw error
        }
        return fd
    }

    /// Asks the broker at descriptor `broker` for a connection to the daemon; blocks (bounded by
    /// the daemon's start time): call it on a thread you own, or through ``IOEngine``.
    ///
    /// - Returns: a connected, bound, close-on-exec socket.
    /// - Throws: the broker's error (`daemon-unavailable`, `daemon-refused`, …);
    ///   ``/SandboxCore/SandboxError/Code/daemonUnavailable`` when the broker is gone.
    package static func requestConnection(from broker: CInt) throws(SandboxError) -> CInt {
        // The broker may start the daemon first: wait for that, and not for ever.
        DaemonRendezvous.setTimeouts(broker, DaemonRendezvous.startTimeout + DaemonRendezvous.ioTimeout)
        let request: [UInt8] = [0x63]
        let sent = request.withUnsafeBytes { csb_send_with_descriptor(broker, $0.baseAddress, $0.count, -1) }
        guard sent == 1 else {
            throw SandboxError(
                .daemonUnavailable,
                "The launcher's daemon broker (descriptor \(broker)) is gone (\(Errno(rawValue: errno))); background transfers need the app launched confined, by the launcher that holds the broker."
            )
        }
        var reply = [UInt8](repeating: 0, count: 4096)
        var fd: CInt = -1
        let got = reply.withUnsafeMutableBytes { csb_receive_with_descriptor(broker, $0.baseAddress, $0.count, &fd) }
        guard got > 0 else {
            throw SandboxError(
                .daemonUnavailable,
                "The launcher's daemon broker (descriptor \(broker)) did not answer (\(got == 0 ? "closed" : "\(Errno(rawValue: errno))"))."
            )
        }
        let text = String(decoding: reply[..<got], as: UTF8.self)
        if text == "ok", fd >= 0 { return fd }
        if fd >= 0 { Glibc.close(fd) }
        let parts = text.split(separator: "\t", maxSplits: 2).map(String.init)
        guard parts.count == 3, parts[0] == "error" else {
            throw SandboxError(
                .daemonUnavailable, "The launcher's daemon broker answered something else: '\(text.prefix(80))'.")
        }
        throw SandboxError(SandboxError.Code(parts[1]), parts[2])
    }
}
