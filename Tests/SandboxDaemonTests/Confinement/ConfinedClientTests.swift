import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SandboxTransfer
import SandboxTransferTesting
import Testing

/// Issue 25: a program under `sandbox run` reaches nothing outside its container through
/// `sandboxd`. The attacker is a real Python program confined by the built `sandbox`, against a
/// real daemon (started by the launcher's broker) and a real nginx.
@Suite(.serialized) struct ConfinedClientTests {
    static let victim = "com.example.victim"

    /// Runs the hostile client confined to the fixture's app and returns what it printed.
    private func attack(
        _ fixture: DaemonFixture, url: String, extra: [String] = [], secret: String = "unset"
    ) async throws -> [String: Any] {
        let documents = fixture.container.homeDirectory + "/Documents"
        let relaunch = try ConfinedClient.installRelaunchScript(in: fixture)
        try Data(ConfinedClient.script.utf8).write(to: URL(fileURLWithPath: documents + "/attack.py"))
        var environment = fixture.environment()
        environment["SANDBOX_TEST_SECRET"] = secret
        let output = try await BuiltProgram("sandbox").run(
            ["run", DaemonFixture.app] + extra + [
                "--", "/usr/bin/python3", documents + "/attack.py", fixture.paths.socket, Self.victim, url, relaunch,
            ],
            environment: environment, outputIn: fixture.scratch.path, timeout: .seconds(120))
        #expect(output.status == 0, "\(output.stderr)")
        let line = output.stdout.split(separator: "\n").last.map(String.init) ?? ""
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return try #require(object, "not JSON: \(output.stdout) \(output.stderr)")
    }

    private func answer(_ result: [String: Any], _ attempt: String, _ key: String) -> [String: Any] {
        ((result[attempt] as? [String: Any])?[key] as? [String: Any]) ?? [:]
    }

    @Test("a confined program cannot open a Unix socket to sandboxd, nor act for another app through its broker")
    func anotherAppIsOutOfReach() async throws {
        let server = try await NginxServer.start()
        try server.serve(TestData.bytes(10_000, seed: 25), as: "own.bin")
        try await DaemonFixture.with { fixture in
            _ = try fixture.home.createContainer(for: AppIdentifier(Self.victim))
            let result = try await attack(fixture, url: server.url("/files/own.bin"))
            // The socket itself: refused by the confinement (EACCES), whatever its path.
            let direct = result["direct"] as? [String: Any]
            #expect(direct?["errno"] as? Int == Int(EACCES), "\(result)")
            // Through the broker: bound to its own app, a hello for another is refused, and nothing
            // of the other app is listed.
            let other = answer(result, "otherApp", "hello")
            #expect(other["type"] as? String == "failure", "\(result)")
            #expect(other["code"] as? String == "permission-denied", "\(result)")
            #expect((result["otherApp"] as? [String: Any])?["list"] == nil)
            // A second binding on a bound connection is refused too.
            let rebind = result["rebind"] as? [String: Any]
            #expect(rebind?["type"] as? String == "failure", "\(result)")
            // Its own app works: welcome, relaunch registered, the absurd time limit refused.
            #expect(answer(result, "ownApp", "hello")["type"] as? String == "welcome", "\(result)")
            #expect(answer(result, "ownApp", "relaunch")["type"] as? String == "done", "\(result)")
            #expect(answer(result, "ownApp", "infinite")["code"] as? String == "invalid-argument", "\(result)")
            #expect(answer(result, "ownApp", "submit")["type"] as? String == "submitted", "\(result)")
            // The victim's container got nothing (its Documents holds only the empty Inbox).
            let victimDocuments = try FileManager.default.contentsOfDirectory(
                atPath: try fixture.home.container(for: AppIdentifier(Self.victim)).homeDirectory + "/Documents")
            #expect(victimDocuments == ["Inbox"])
        }
        await server.stop()
    }

    @Test("--no-network: the daemon does not download for the app")
    func noNetworkTravelsWithTheConnection() async throws {
        let server = try await NginxServer.start()
        try server.serve(TestData.bytes(1000, seed: 26), as: "leak.bin")
        try await DaemonFixture.with { fixture in
            _ = try fixture.home.createContainer(for: AppIdentifier(Self.victim))
            let result = try await attack(
                fixture, url: server.url("/files/leak.bin?leak=SECRET"), extra: ["--no-network"])
            let submit = answer(result, "ownApp", "submit")
            #expect(submit["type"] as? String == "failure", "\(result)")
            #expect(submit["code"] as? String == "permission-denied", "\(result)")
            #expect(!server.accessLog().contains { $0.uri.contains("leak=SECRET") })
        }
        await server.stop()
    }

    @Test("a relaunch runs confined, with an environment built from scratch and its own broker")
    func relaunchIsConfined() async throws {
        let server = try await NginxServer.start()
        try server.serve(TestData.bytes(10_000, seed: 27), as: "relaunch.bin")
        try await DaemonFixture.with { fixture in
            _ = try fixture.home.createContainer(for: AppIdentifier(Self.victim))
            _ = try await attack(fixture, url: server.url("/files/relaunch.bin"), secret: "AWS-SECRET-25")
            let report = fixture.container.homeDirectory + "/Documents/relaunched.json"
            #expect(await eventually(timeout: .seconds(60)) { FileManager.default.fileExists(atPath: report) })
            let data = try Data(contentsOf: URL(fileURLWithPath: report))
            let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            #expect(object["shadow"] as? Int == Int(EACCES), "\(object)")
            #expect(object["unixSocket"] as? Int == Int(EACCES), "\(object)")
            let names = object["environment"] as? [String] ?? []
            #expect(!names.contains("SANDBOX_TEST_SECRET"), "\(names)")
            #expect(!names.contains("SANDBOX_HOME"), "\(names)")
            #expect(object["session"] as? String == "s")
            #expect(object["broker"] as? String == "connection", "\(object)")
            // Its own session's events reach it through that connection, and the file it moves.
            #expect(object["events"] as? [String] == ["finished", "completed"], "\(object)")
            #expect(try fixture.contents("Library/Caches/relaunch.bin") == TestData.bytes(10_000, seed: 27))
        }
        await server.stop()
    }
}
