import Foundation
import SandboxTesting
import Testing

@testable import SandboxShare

/// The page's sessions as devices: `sandbox share APP --devices` lists them from another process,
/// `--revoke ID` ends one in the running share.
@Suite struct PairingDevicesTests {
    static let iPhone =
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) "
        + "Version/17.0 Mobile/15E148 Safari/604.1"

    @Test func labelsNameTheDeviceAndTheBrowser() {
        #expect(DeviceSessions.label(userAgent: Self.iPhone) == "iPhone · Safari")
        let android =
            "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36"
        #expect(DeviceSessions.label(userAgent: android) == "Android · Chrome")
        let mac = "Mozilla/5.0 (Macintosh; Intel Mac OS X 14.0; rv:121.0) Gecko/20100101 Firefox/121.0"
        #expect(DeviceSessions.label(userAgent: mac) == "Mac · Firefox")
        #expect(DeviceSessions.label(userAgent: nil) == "Unknown device · unknown browser")
    }

    @Test func devicesListsSessionsAndRevokeEndsOne() async throws {
        try await ShareServerProcess.with { server in
            let sandbox = try BuiltProgram("sandbox")
            let environment = ["SANDBOX_HOME": server.home]
            func share(_ arguments: String...) async throws -> ProgramOutput {
                try await sandbox.run(
                    ["share", server.app] + arguments, environment: environment, outputIn: server.scratch.path)
            }
            // A phone pairs; a computer logs in with the code.
            let path = try PairingServerTests.pairingPath(server)
            let paired = try await server.send("GET", path, headers: [("User-Agent", Self.iPhone)], credentials: .none)
            #expect(paired.status == 303, "\(paired)")
            let phoneCookie = String(try #require(paired.header("Set-Cookie")).prefix { $0 != ";" })
            let phoneBase = String(try #require(paired.header("Location")).dropLast("paired".count))
            let login = try await server.send(
                "POST", "/.sandbox/login",
                headers: [("Content-Type", "application/x-www-form-urlencoded"), ("User-Agent", "curl/8.5.0")],
                text: "code=\(server.code)", credentials: .none)
            #expect(login.status == 303, "\(login)")
            let computerCookie = String(try #require(login.header("Set-Cookie")).prefix { $0 != ";" })
            let computerBase = try #require(login.header("Location"))

            let listed = try await share("--devices")
            #expect(listed.status == 0, "\(listed.stderr)")
            let lines = listed.stdout.split(separator: "\n")
            #expect(lines.count == 3 && lines[0].hasPrefix("ID"), "\(listed.stdout)")
            let phone = try #require(lines.first { $0.contains("iPhone · Safari") }, "\(listed.stdout)")
            #expect(lines.contains { $0.contains("Unknown device · curl") }, "\(listed.stdout)")
            // The list holds hashes: neither token is in it, and only the owner reads it.
            let file = server.home + "/Device/Share/devices-\(server.app).json"
            let text = try String(contentsOfFile: file, encoding: .utf8)
            for cookie in [phoneCookie, computerCookie] {
                #expect(!text.contains(String(cookie.dropFirst("sandbox_session=".count))))
            }
            let mode = try #require(try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int)
            #expect(mode & 0o077 == 0, "mode \(String(mode, radix: 8))")

            let id = String(phone.prefix { $0 != " " })
            let before = try await server.send("GET", phoneBase, headers: [("Cookie", phoneCookie)], credentials: .none)
            #expect(before.status == 200, "\(before)")
            let revoked = try await share("--revoke", id)
            #expect(revoked.status == 0, "\(revoked.stderr)")
            // The phone's next request goes to the login page; its API answers 401.
            let page = try await server.send("GET", phoneBase, headers: [("Cookie", phoneCookie)], credentials: .none)
            #expect(page.status == 303 && page.header("Location") == "/.sandbox/login", "\(page)")
            let api = try await server.send(
                "GET", phoneBase + "api/list?path=%2F", headers: [("Cookie", phoneCookie)], credentials: .none)
            #expect(api.status == 401, "\(api)")
            // The computer's session goes on.
            let other = try await server.send(
                "GET", computerBase, headers: [("Cookie", computerCookie)], credentials: .none)
            #expect(other.status == 200, "\(other)")
            let after = try await share("--devices")
            #expect(!after.stdout.contains(id) && after.stdout.contains("curl"), "\(after.stdout)")
            // An ID that is not listed: an error naming it.
            let unknown = try await share("--revoke", "00000000")
            #expect(unknown.status != 0 && unknown.stderr.contains("00000000"), "\(unknown.stderr)")
        }
    }
}
