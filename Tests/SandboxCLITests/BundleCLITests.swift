import Foundation
import SandboxTesting
import Testing

@Suite("The sandbox command line: keygen, trust, sign, create --bundle, update, verify")
struct BundleCLITests {
    let app = "com.example.notes"

    /// Writes a small bundle in the scratch folder, with an Info.plist naming `identifier` and
    /// `version`, and returns its path.
    private func bundle(
        _ cli: CLI, _ folder: String, version: String, identifier: String = "com.example.notes"
    ) throws -> String {
        let path = cli.scratch + "/" + folder + "/Notes.app"
        try FileManager.default.createDirectory(atPath: path + "/de.lproj", withIntermediateDirectories: true)
        try Data(infoPlist(identifier: identifier, version: version).utf8).write(
            to: URL(fileURLWithPath: path + "/Info.plist"))
        try Data("Hallo".utf8).write(to: URL(fileURLWithPath: path + "/de.lproj/Localizable.strings"))
        return path
    }

    @Test("keygen writes a 0600 key and refuses to overwrite; trust lists it")
    func keygen() async throws {
        try await CLI.withTemporary { cli in
            let key = cli.scratch + "/dev.key"
            let made = try await cli.run("keygen", key, "--json")
            #expect(made.status == 0, "\(made.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(made.stdout.utf8)) as? [String: Any]
            let keyID = try #require(summary?["keyID"] as? String)
            #expect(keyID.count == 64)
            let mode = try FileManager.default.attributesOfItem(atPath: key)[.posixPermissions] as? Int
            #expect(mode == 0o600)
            #expect(try String(contentsOfFile: key + ".pub", encoding: .utf8).hasPrefix("sandbox-ed25519-public-key "))
            let again = try await cli.run("keygen", key)
            #expect(again.status == 1)
            #expect(again.stderr.contains("never overwritten"))
            #expect(again.stderr.hasSuffix("[already-exists]\n"))
            #expect(try await cli.run("trust", "--list").stdout.isEmpty)
            #expect(try await cli.run("trust", key + ".pub").stdout == "Trusted key \(keyID)\n")
            #expect(try await cli.run("trust", "--list").stdout == keyID + "\n")
            let wrong = try await cli.run("trust", key)
            #expect(wrong.status == 64)
            #expect(wrong.stderr.contains("is not a sandbox public key"))
        }
    }

    @Test("sign, create --bundle, verify, update; a tampered bundle is refused naming the file")
    func signInstallUpdate() async throws {
        try await CLI.withTemporary { cli in
            let key = cli.scratch + "/dev.key"
            #expect(try await cli.run("keygen", key, "--trust").status == 0)
            let v1 = try bundle(cli, "v1", version: "1")

            let unsigned = try await cli.run("create", app, "--bundle", v1)
            #expect(unsigned.status == 1)
            #expect(unsigned.stderr.contains("[signature-invalid]"))
            #expect(try await cli.run("list").stdout.isEmpty)

            let signed = try await cli.run("sign", v1, "--key", key)
            #expect(signed.status == 0, "\(signed.stderr)")
            #expect(signed.stdout.contains("2 file(s), 1 folder(s)"))
            let created = try await cli.run("create", app, "--bundle", v1)
            #expect(created.status == 0, "\(created.stderr)")
            #expect(
                try await cli.run("verify", app).stdout.contains("bundle intact, version 1: 2 file(s), 1 folder(s)"))
            let missing = try await cli.run("resource", app, "Missing.strings")
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("No resource 'Missing.strings'"))
            #expect(
                try await cli.run("resource", app, "Localizable", "--type", "strings", "--localization", "de-AT").stdout
                    .hasSuffix("/Notes.app/de.lproj/Localizable.strings\n"))

            try Data("keep me".utf8).write(to: URL(fileURLWithPath: cli.scratch + "/doc.txt"))
            #expect(try await cli.run("put", app, cli.scratch + "/doc.txt", "Documents/doc.txt").status == 0)

            let v2 = try bundle(cli, "v2", version: "2")
            #expect(try await cli.run("sign", v2, "--key", key).status == 0)
            let updated = try await cli.run("update", app, "--bundle", v2, "--json")
            #expect(updated.status == 0, "\(updated.stderr)")
            let report = try JSONSerialization.jsonObject(with: Data(updated.stdout.utf8)) as? [String: Any]
            #expect((report?["verification"] as? [String: Any])?["files"] as? Int == 2)
            #expect(try await cli.run("cat", app, "Documents/doc.txt").stdout == "keep me")
            let bundlePath = try await cli.run("path", app, "bundle").stdout.trimmingCharacters(in: .newlines)
            #expect(
                try String(contentsOfFile: bundlePath + "/Info.plist", encoding: .utf8)
                    == infoPlist(identifier: app, version: "2"))

            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: bundlePath + "/Info.plist")
            try Data("v3".utf8).write(to: URL(fileURLWithPath: bundlePath + "/Info.plist"))
            let tampered = try await cli.run("verify", app)
            #expect(tampered.status == 1)
            #expect(tampered.stderr.contains("'Notes.app/Info.plist' was modified"))
            #expect(tampered.stderr.hasSuffix("[bundle-modified]\n"))

            let stranger = cli.scratch + "/stranger.key"
            #expect(try await cli.run("keygen", stranger).status == 0)
            let v4 = try bundle(cli, "v4", version: "4")
            #expect(try await cli.run("sign", v4, "--key", stranger).status == 0)
            let refused = try await cli.run("update", app, "--bundle", v4)
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("[untrusted-key]"))
            #expect(try await cli.run("cat", app, "Documents/doc.txt").stdout == "keep me")
        }
    }

    @Test("sign takes the app and version from Info.plist; create and update keep to them")
    func identity() async throws {
        try await CLI.withTemporary { cli in
            let key = cli.scratch + "/dev.key"
            #expect(try await cli.run("keygen", key, "--trust").status == 0)
            let bare = cli.scratch + "/Bare.app"
            try FileManager.default.createDirectory(atPath: bare, withIntermediateDirectories: true)
            let missing = try await cli.run("sign", bare, "--key", key)
            #expect(missing.status == 1)
            #expect(missing.stderr.contains("Bare.app/Info.plist' does not exist"), "\(missing.stderr)")
            #expect(missing.stderr.contains("CFBundleIdentifier"))
            try Data("<plist/>".utf8).write(to: URL(fileURLWithPath: bare + "/Info.plist"))
            let bad = try await cli.run("sign", bare, "--key", key)
            #expect(bad.status == 64, "\(bad.stderr)")
            #expect(bad.stderr.contains("Info.plist"))

            let v3 = try bundle(cli, "v3", version: "1.2.10")
            let signed = try await cli.run("sign", v3, "--key", key)
            #expect(signed.stdout.contains("as com.example.notes version 1.2.10"), "\(signed.stdout) \(signed.stderr)")
            let wrongApp = try await cli.run("create", "com.example.mail", "--bundle", v3)
            #expect(wrongApp.status == 1)
            #expect(wrongApp.stderr.contains("[identifier-mismatch]"))
            #expect(try await cli.run("create", app, "--bundle", v3).status == 0)
            let v2 = try bundle(cli, "v2", version: "1.2.9")
            #expect(try await cli.run("sign", v2, "--key", key).status == 0)
            let downgrade = try await cli.run("update", app, "--bundle", v2)
            #expect(downgrade.status == 1)
            #expect(downgrade.stderr.contains("lower than the installed version 1.2.10"), "\(downgrade.stderr)")
            #expect(downgrade.stderr.hasSuffix("[downgrade]\n"))
            #expect(try await cli.run("verify", app).stdout.contains("version 1.2.10"))
        }
    }

    @Test("create without --bundle still works, and its placeholder bundle verifies as unsigned")
    func withoutBundle() async throws {
        try await CLI.withTemporary { cli throws in
            #expect(try await cli.run("create", app).status == 0)
            #expect(try await cli.run("verify", app).stdout.contains("no bundle installed"))
        }
    }
}

/// An XML `Info.plist` with the keys `sandbox sign` reads, and `keys` (raw XML key/value pairs).
func infoPlist(identifier: String, version: String, keys: String = "") -> String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
    <plist version="1.0"><dict><key>CFBundleIdentifier</key><string>\(identifier)</string><key>CFBundleVersion</key><string>\(version)</string>\(keys)</dict></plist>

    """
}
