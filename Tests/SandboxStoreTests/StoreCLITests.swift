import Foundation
import SandboxStore
import Testing

@Suite("sandbox defaults and sandbox keychain")
struct StoreCLITests {
    let app = "com.example.notes"

    @Test("defaults write, read (text and JSON), delete, with every --type")
    func defaults() throws {
        try Fixture.with { fixture in
            let writes: [(String, String, String)] = [
                ("name", "Ada Lovelace", "string"), ("count", "42", "int"), ("ratio", "2", "double"),
                ("on", "yes", "bool"), ("when", "2026-11-21T09:30:00.250Z", "date"), ("blob", "cafe01", "data"),
            ]
            for (key, value, type) in writes {
                let result = try BuiltProduct.sandbox("defaults", app, "write", key, value, "--type", type, fixture: fixture)
                #expect(result.status == 0, "\(key): \(result.stderr)")
            }
            #expect(try BuiltProduct.sandbox("defaults", app, "read", "name", fixture: fixture).stdout == "Ada Lovelace\n")
            #expect(try BuiltProduct.sandbox("defaults", app, "read", "when", fixture: fixture).stdout == "2026-11-21T09:30:00.250Z\n")
            #expect(try BuiltProduct.sandbox("defaults", app, "read", "blob", fixture: fixture).stdout == "<cafe01>\n")
            let all = try BuiltProduct.sandbox("defaults", app, "read", fixture: fixture)
            #expect(all.stdout.contains("    count = 42;"))
            let json = try BuiltProduct.sandbox("defaults", app, "read", "--json", fixture: fixture)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["count"] as? Int == 42)
            #expect(object["on"] as? Bool == true)
            #expect(object["blob"] as? String == "yv4B")
            // What the CLI wrote, the library reads with its types.
            let preferences = try fixture.container.preferences()
            #expect(preferences.value(forKey: "ratio") == .double(2))
            #expect(preferences.value(forKey: "when") == .date(Date(timeIntervalSince1970: 1_795_253_400.25)))
            #expect(try BuiltProduct.sandbox("defaults", app, "delete", "name", fixture: fixture).status == 0)
            let missing = try BuiltProduct.sandbox("defaults", app, "read", "name", fixture: fixture)
            #expect(missing.status == 1)
            #expect(missing.stderr.hasPrefix("sandbox: The key 'name' does not exist"))
            #expect(missing.stderr.hasSuffix("[not-found]\n"))
        }
    }

    @Test("defaults: bad values and usage are refused with EX_USAGE")
    func defaultsErrors() throws {
        try Fixture.with { fixture in
            let bad = try BuiltProduct.sandbox("defaults", app, "write", "n", "forty", "--type", "int", fixture: fixture)
            #expect(bad.status == 64)
            #expect(bad.stderr.contains("[invalid-value]"))
            #expect(try BuiltProduct.sandbox("defaults", app, "write", "n", fixture: fixture).status == 64)
            #expect(try BuiltProduct.sandbox("defaults", "com.example.absent", "read", fixture: fixture).status == 1)
        }
    }

    @Test("defaults: negative and unsigned values need no '--'; JSON holds reals that are not finite")
    func defaultsValues() throws {
        try Fixture.with { fixture in
            for (key, value, type) in [("n", "-5", "int"), ("x", "-2.5", "double"), ("u", "18446744073709551615", "int")] {
                let result = try BuiltProduct.sandbox("defaults", app, "write", key, value, "--type", type, fixture: fixture)
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
            let json = try BuiltProduct.sandbox("defaults", app, "read", "--json", fixture: fixture)
            #expect(json.status == 0, "\(json.stderr)")
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["inf"] as? String == "+infinity")
            #expect(object["ninf"] as? String == "-infinity")
            #expect(object["nan"] as? String == "nan")
            #expect(object["n"] as? Int == -5)
            #expect((object["u"] as? NSNumber)?.uint64Value == .max)
            #expect(try BuiltProduct.sandbox("defaults", app, "read", "u", fixture: fixture).stdout == "18446744073709551615\n")
            // Dates before 1582 are proleptic Gregorian both ways, as property lists count them.
            #expect(try BuiltProduct.sandbox("defaults", app, "write", "old", "1367-03-24T12:26:40Z", "--type", "date", fixture: fixture).status == 0)
            #expect(try fixture.container.preferences().value(forKey: "old") == .date(Date(timeIntervalSinceReferenceDate: -20_000_000_000)))
            #expect(try BuiltProduct.sandbox("defaults", app, "read", "old", fixture: fixture).stdout == "1367-03-24T12:26:40.000Z\n")
            let extra = try BuiltProduct.sandbox("defaults", app, "write", "k", "v", "w", fixture: fixture)
            #expect(extra.status == 64, "\(extra.stderr)")
        }
    }

    @Test("keychain set (stdin), get, delete")
    func keychain() throws {
        try Fixture.with { fixture in
            let set = try BuiltProduct.sandbox("keychain", app, "set", "com.example.api", "alice", fixture: fixture, input: Data("s3cr3t-value\n".utf8))
            #expect(set.status == 0, "\(set.stderr)")
            let get = try BuiltProduct.sandbox("keychain", app, "get", "com.example.api", "alice", fixture: fixture)
            #expect(get.stdout == "s3cr3t-value\n")
            let json = try BuiltProduct.sandbox("keychain", app, "get", "com.example.api", "alice", "--json", fixture: fixture)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
            #expect(object["secret"] as? String == "s3cr3t-value")
            #expect(try Keychain(home: fixture.home, app: Fixture.app, service: "com.example.api").get("alice") == "s3cr3t-value")
            #expect(try BuiltProduct.sandbox("keychain", app, "delete", "com.example.api", "alice", fixture: fixture).status == 0)
            let gone = try BuiltProduct.sandbox("keychain", app, "get", "com.example.api", "alice", fixture: fixture)
            #expect(gone.status == 1)
            #expect(gone.stderr.contains("[not-found]"))
            // The library, not the CLI, refuses the keychain of an app that is not installed.
            let absent = try BuiltProduct.sandbox("keychain", "com.example.absent", "get", "com.example.api", "alice", fixture: fixture)
            #expect(absent.status == 1)
            #expect(absent.stderr.contains("com.example.absent") && absent.stderr.contains("[not-found]"), "\(absent.stderr)")
        }
    }
}
