import Foundation
import SandboxStore
import SandboxTesting
import Testing

@Suite("sandbox defaults and sandbox keychain")
struct StoreCLITests {
    let app = "com.example.notes"

    @Test("defaults write, read (text and JSON), delete, with every --type")
    func defaults() async throws {
        try await Fixture.with { fixture in
            let writes: [(String, String, String)] = [
                ("name", "Ada Lovelace", "string"), ("count", "42", "int"), ("ratio", "2", "double"),
                ("on", "yes", "bool"), ("when", "2026-11-21T09:30:00.250Z", "date"), ("blob", "cafe01", "data"),
            ]
            for (key, value, type) in writes {
                let result = try await fixture.sandbox("defaults", app, "write", key, value, "--type", type)
                #expect(result.status == 0, "\(key): \(result.stderr)")
            }
            #expect(try await fixture.sandbox("defaults", app, "read", "name").stdout == "Ada Lovelace\n")
            #expect(try await fixture.sandbox("defaults", app, "read", "when").stdout == "2026-11-21T09:30:00.250Z\n")
            #expect(try await fixture.sandbox("defaults", app, "read", "blob").stdout == "<cafe01>\n")
            let all = try await fixture.sandbox("defaults", app, "read")
            #expect(all.stdout.contains("    count = 42;"))
            let json = try await fixture.sandbox("defaults", app, "read", "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["count"] as? Int == 42)
            #expect(object["on"] as? Bool == true)
            #expect(object["blob"] as? String == "yv4B")
            // What the CLI wrote, the library reads with its types.
            let preferences = try fixture.container.preferences()
            #expect(preferences.value(forKey: "ratio") == .double(2))
            #expect(preferences.value(forKey: "when") == .date(Date(timeIntervalSince1970: 1_795_253_400.25)))
            #expect(try await fixture.sandbox("defaults", app, "delete", "name").status == 0)
            let missing = try await fixture.sandbox("defaults", app, "read", "name")
            #expect(missing.status == 1)
            #expect(missing.stderr.hasPrefix("sandbox: The key 'name' does not exist"))
            #expect(missing.stderr.hasSuffix("[not-found]\n"))
        }
    }

    @Test("defaults: bad values and usage are refused with EX_USAGE")
    func defaultsErrors() async throws {
        try await Fixture.with { fixture in
            let bad = try await fixture.sandbox("defaults", app, "write", "n", "forty", "--type", "int")
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("[invalid-value]"))
            #expect(try await fixture.sandbox("defaults", app, "write", "n").status == 64)
            #expect(try await fixture.sandbox("defaults", "com.example.absent", "read").status == 1)
        }
    }

    @Test("defaults: negative and unsigned values need no '--'; JSON holds reals that are not finite")
    func defaultsValues() async throws {
        try await Fixture.with { fixture in
            for (key, value, type) in [
                ("n", "-5", "int"), ("x", "-2.5", "double"), ("u", "18446744073709551615", "int"),
            ] {
                let result = try await fixture.sandbox("defaults", app, "write", key, value, "--type", type)
                #expect(result.status == 0, "\(key): \(result.stderr)")
            }
            let preferences = try fixture.container.preferences()
            #expect(preferences.value(forKey: "n") == .integer(-5))
            #expect(preferences.value(forKey: "x") == .double(-2.5))
            #expect(preferences.value(forKey: "u") == .unsignedInteger(.max))
            try preferences.update { values in
                values["inf"] = .double(.infinity)
                values["ninf"] = .double(-.infinity)
                values["nan"] = .double(.nan)
            }
            let json = try await fixture.sandbox("defaults", app, "read", "--json")
            #expect(json.status == 0, "\(json.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["inf"] as? String == "+infinity")
            #expect(object["ninf"] as? String == "-infinity")
            #expect(object["nan"] as? String == "nan")
            #expect(object["n"] as? Int == -5)
            #expect((object["u"] as? NSNumber)?.uint64Value == .max)
            #expect(try await fixture.sandbox("defaults", app, "read", "u").stdout == "18446744073709551615\n")
            // Dates before 1582 are proleptic Gregorian both ways, as property lists count them.
            #expect(
                try await fixture.sandbox("defaults", app, "write", "old", "1367-03-24T12:26:40Z", "--type", "date")
                    .status == 0)
            #expect(
                try fixture.container.preferences().value(forKey: "old")
                    == .date(Date(timeIntervalSinceReferenceDate: -20_000_000_000)))
            #expect(try await fixture.sandbox("defaults", app, "read", "old").stdout == "1367-03-24T12:26:40.000Z\n")
            let extra = try await fixture.sandbox("defaults", app, "write", "k", "v", "w")
            #expect(extra.status == 64, "\(extra.stderr)")
        }
    }

    @Test("keychain set (stdin), get, delete")
    func keychain() async throws {
        try await Fixture.with { fixture in
            let set = try await fixture.sandbox(
                "keychain", app, "set", "com.example.api", "alice", input: Array("s3cr3t-value\n".utf8))
            #expect(set.status == 0, "\(set.stderr)")
            let get = try await fixture.sandbox("keychain", app, "get", "com.example.api", "alice")
            #expect(get.stdout == "s3cr3t-value\n")
            let json = try await fixture.sandbox("keychain", app, "get", "com.example.api", "alice", "--json")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["secret"] as? String == "s3cr3t-value")
            #expect(
                try Keychain(home: fixture.home, app: Fixture.app, service: "com.example.api").get("alice")
                    == "s3cr3t-value")
            #expect(try await fixture.sandbox("keychain", app, "delete", "com.example.api", "alice").status == 0)
            let gone = try await fixture.sandbox("keychain", app, "get", "com.example.api", "alice")
            #expect(gone.status == 1)
            #expect(gone.stderr.contains("[not-found]"))
            // The library, not the CLI, refuses the keychain of an app that is not installed.
            let absent = try await fixture.sandbox("keychain", "com.example.absent", "get", "com.example.api", "alice")
            #expect(absent.status == 1)
            #expect(
                absent.stderr.contains("com.example.absent") && absent.stderr.contains("[not-found]"),
                "\(absent.stderr)")
        }
    }
}
