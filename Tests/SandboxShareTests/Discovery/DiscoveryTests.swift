import Foundation
import Glibc
import SandboxShare
import SandboxTesting
import XCTest

/// The share announced over DNS-SD through a real `avahi-daemon` (``AvahiLab``: its own network
/// namespace and D-Bus bus), found by `avahi-browse`, and lost once the share stops; without a
/// daemon, one notice and the share serves all the same.
final class DiscoveryTests: XCTestCase {
    /// The share bound to the namespace's address announces `_webdav._tcp` and `_http._tcp` on its
    /// port with `path=/`; SIGTERM withdraws them.
    func testBrowsingFindsTheShareThenLosesItOnceItStops() async throws {
        try XCTSkipUnless(AvahiLab.isAvailable, "needs root, ip, dbus-daemon, avahi-daemon and avahi-utils")
        let scratch = try ScratchDirectory.make(prefix: "sandbox-discovery")
        defer { scratch.remove() }
        try await AvahiLab.with(scratch: scratch.path) { lab in
            let server = try await ShareServerProcess.start(
                arguments: ["--bind", lab.namespace.peerAddress, "--insecure"], environment: lab.environment,
                launcher: lab.namespace.launcher)
            let name = try XCTUnwrap(ShareServerProcess.value(after: "Announced:", in: server.process.standardOutput()))
            XCTAssertEqual(name, ShareAnnouncement.name(app: "com.example.share"))
            var found: [BrowsedService] = []
            let announced = try await eventuallyAsync(timeout: .seconds(30)) {
                found = try await lab.browse("_webdav._tcp").filter { $0.name == name }
                return !found.isEmpty
            }
            XCTAssertTrue(announced, "avahi-browse never found '\(name)'; daemon: \(lab.daemonLog()); \(server.log())")
            let webdav = try XCTUnwrap(found.first)
            XCTAssertEqual(webdav.port, server.port)
            XCTAssertEqual(webdav.address, lab.namespace.peerAddress)
            XCTAssertTrue(webdav.text.contains("path=/"), "\(webdav.text)")
            XCTAssertFalse(webdav.text.contains { $0.contains(server.code) }, "the pairing code in the TXT record")
            let http = try await lab.browse("_http._tcp").filter { $0.name == name }
            XCTAssertEqual(http.first?.port, server.port)
            XCTAssertFalse(server.log().contains("notice:"), server.log())

            try await server.stop()
            let withdrawn = try await eventuallyAsync(timeout: .seconds(30)) {
                try await lab.browse("_webdav._tcp").allSatisfy { $0.name != name }
            }
            XCTAssertTrue(withdrawn, "'\(name)' is still announced after the share stopped")
        }
    }

    /// Another service already has the name: the share takes Avahi's alternative and says so.
    func testANameTakenOnTheNetworkIsReplacedByTheAlternative() async throws {
        try XCTSkipUnless(AvahiLab.isAvailable, "needs root, ip, dbus-daemon, avahi-daemon and avahi-utils")
        let scratch = try ScratchDirectory.make(prefix: "sandbox-discovery")
        defer { scratch.remove() }
        try await AvahiLab.with(scratch: scratch.path) { lab in
            let name = ShareAnnouncement.name(app: "com.example.share")
            let squatter = try lab.namespace.start(
                ["/usr/bin/avahi-publish", "-s", name, "_webdav._tcp", "9", "path=/elsewhere"],
                environment: lab.environment)
            defer { squatter.signal(SIGKILL) }
            let squatting = await eventually(timeout: .seconds(30)) {
                let said = ((try? squatter.standardOutput()) ?? "") + ((try? squatter.standardError()) ?? "")
                return said.contains("Established") || !squatter.isRunning
            }
            XCTAssertTrue(squatting && squatter.isRunning, "avahi-publish: \((try? squatter.standardError()) ?? "")")
            try await ShareServerProcess.with(
                arguments: ["--bind", lab.namespace.peerAddress, "--insecure"], environment: lab.environment,
                launcher: lab.namespace.launcher
            ) { server in
                let alternative = "\(name) #2"
                let renamed = try await eventuallyAsync(timeout: .seconds(30)) {
                    try await lab.browse("_webdav._tcp").contains { $0.name == alternative && $0.port == server.port }
                }
                let listed = try await lab.browse("_webdav._tcp")
                XCTAssertTrue(renamed, "'\(alternative)' not found in \(listed); \(server.log()); \(lab.daemonLog())")
                XCTAssertTrue(server.log().contains("announced as '\(alternative)'"), server.log())
            }
        }
    }

    /// No bus, hence no daemon: one notice naming what is missing and avahi-daemon, and the share
    /// serves.
    func testWithoutAvahiTheShareSaysSoOnceAndServes() async throws {
        let scratch = try ScratchDirectory.make(prefix: "sandbox-discovery")
        defer { scratch.remove() }
        let nowhere = ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(scratch.path)/no-bus"]
        try await ShareServerProcess.with(arguments: ["--announce"], environment: nowhere) { server in
            let noticed = await eventually(timeout: .seconds(30)) { server.log().contains("notice:") }
            XCTAssertTrue(noticed, "no notice: \(server.log())")
            let notices = server.log().split(separator: "\n").filter { $0.hasPrefix("notice:") }
            XCTAssertEqual(notices.count, 1, "\(notices)")
            XCTAssertTrue(notices.first?.contains("avahi-daemon") == true, "\(notices)")
            XCTAssertTrue(notices.first?.contains("D-Bus") == true, "\(notices)")
            let output = try await BuiltProgram(path: "/usr/bin/curl").run(
                [
                    "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PROPFIND", "-H", "Depth: 0", "-u",
                    "sandbox:\(server.code)", server.url("/"),
                ],
                outputIn: server.scratch.path, timeout: .seconds(30))
            XCTAssertEqual(output.stdout, "207", output.stderr)
        }
    }

    /// A loopback share is announced only when asked: nothing on the network could reach it.
    func testALoopbackShareIsNotAnnouncedUnlessAsked() async throws {
        try await ShareServerProcess.with { server in
            let text = try server.process.standardOutput()
            XCTAssertNil(ShareServerProcess.value(after: "Announced:", in: text), text)
        }
    }
}
