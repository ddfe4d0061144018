import Foundation
import Sandbox
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

    /// The running share keeps the decoded list while the file is unchanged (one `statx` a
    /// request), and a revoke by another process (the CLI's own ``DeviceSessions``) still ends the
    /// session at the next check.
    @Test func theListIsCachedUntilTheFileChangesAndARevokeElsewhereStillCounts() throws {
        try ScratchDirectory.with { scratch in
            let home = try SandboxHome(location: scratch.appending("home"))
            let app = try AppIdentifier("com.example.devices")
            let running = try DeviceSessions(home: home, app: app)
            try running.reset()
            try running.add(token: "phone-token", userAgent: Self.iPhone)
            try running.add(token: "computer-token", userAgent: "curl/8.5.0")
            let decodes = running.decodeCount
            for _ in 0..<5 { #expect(running.contains(token: "phone-token")) }
            #expect(running.decodeCount == decodes + 1, "read once for five requests: \(running.decodeCount)")
            let cli = try DeviceSessions(home: home, app: app)
            let phone = try #require(try cli.list().first { $0.label == "iPhone · Safari" })
            #expect(try cli.revoke(id: phone.id))
            #expect(!running.contains(token: "phone-token"), "the revoke is seen at once")
            #expect(running.contains(token: "computer-token"))
            #expect(running.decodeCount == decodes + 2)
        }
    }

    /// Only the browser that logged in with the pairing code lists and revokes devices (with the
    /// CSRF token); a paired phone gets 403 for both; a revoked phone's next request is refused.
    @Test func theOwnersPageListsAndRevokesDevicesAndAPairedPhoneCannot() async throws {
        try await ShareServerProcess.with { server in
            let path = try PairingServerTests.pairingPath(server)
            let paired = try await server.send("GET", path, headers: [("User-Agent", Self.iPhone)], credentials: .none)
            let phoneCookie = String(try #require(paired.header("Set-Cookie")).prefix { $0 != ";" })
            let phoneBase = String(try #require(paired.header("Location")).dropLast("paired".count))
            let phonePage = try await server.send(
                "GET", phoneBase, headers: [("Cookie", phoneCookie)], credentials: .none)
            #expect(phonePage.text.contains("name=\"owner\" content=\"false\""), "a paired phone is no owner")
            let phoneCSRF = try Self.csrf(in: phonePage.text)
            let (cookie, csrf, base) = try await WebPageTests().login(server)

            let listed = try await server.send(
                "GET", base + "api/devices", headers: [("Cookie", cookie)], credentials: .none)
            #expect(listed.status == 200, "\(listed)")
            struct Devices: Decodable {
                struct Device: Decodable {
                    let id: String
                    let label: String
                    let lastSeen: String?
                    let current: Bool
                }
                let devices: [Device]
            }
            let devices = try JSONDecoder().decode(Devices.self, from: Data(listed.text.utf8)).devices
            #expect(devices.count == 2 && devices.filter(\.current).count == 1, "\(listed.text)")
            let phone = try #require(devices.first { $0.label == "iPhone · Safari" })
            let mine = try #require(devices.first { $0.current })
            #expect(!phone.current && phone.lastSeen != nil)

            // The phone may neither list nor revoke, even with its own CSRF token.
            let phoneList = try await server.send(
                "GET", phoneBase + "api/devices", headers: [("Cookie", phoneCookie)], credentials: .none)
            #expect(phoneList.status == 403, "\(phoneList)")
            let phoneRevoke = try await server.send(
                "POST", phoneBase + "api/devices/revoke",
                headers: [("Cookie", phoneCookie), ("X-CSRF-Token", phoneCSRF), ("Content-Type", "application/json")],
                text: "{\"id\": \"\(mine.id)\"}", credentials: .none)
            #expect(phoneRevoke.status == 403, "\(phoneRevoke)")
            // The owner without the CSRF token: refused.
            let tokenless = try await server.send(
                "POST", base + "api/devices/revoke",
                headers: [("Cookie", cookie), ("Content-Type", "application/json")],
                text: "{\"id\": \"\(phone.id)\"}", credentials: .none)
            #expect(tokenless.status == 403, "\(tokenless)")
            let still = try await server.send("GET", phoneBase, headers: [("Cookie", phoneCookie)], credentials: .none)
            #expect(still.status == 200, "\(still)")

            let revoked = try await server.send(
                "POST", base + "api/devices/revoke",
                headers: [("Cookie", cookie), ("X-CSRF-Token", csrf), ("Content-Type", "application/json")],
                text: "{\"id\": \"\(phone.id)\"}", credentials: .none)
            #expect(revoked.status == 204, "\(revoked)")
            let api = try await server.send(
                "GET", phoneBase + "api/list?path=%2F", headers: [("Cookie", phoneCookie)], credentials: .none)
            #expect(api.status == 401, "the phone is logged out: \(api)")
            let again = try await server.send(
                "POST", base + "api/devices/revoke",
                headers: [("Cookie", cookie), ("X-CSRF-Token", csrf), ("Content-Type", "application/json")],
                text: "{\"id\": \"\(phone.id)\"}", credentials: .none)
            #expect(again.status == 404, "\(again)")
            let after = try await server.send(
                "GET", base + "api/devices", headers: [("Cookie", cookie)], credentials: .none)
            #expect(after.status == 200 && !after.text.contains(phone.id), "\(after)")
        }
    }

    static func csrf(in page: String) throws -> String {
        let marker = "name=\"csrf-token\" content=\""
        let start = try #require(page.range(of: marker)).upperBound
        return String(page[start...].prefix(64))
    }
}
