import Foundation
import SandboxStore
import SandboxTesting
import Testing

@Suite("Keychain")
struct KeychainTests {
    let secret = "correct horse battery staple 7f3a9c"

    func keychain(_ fixture: Fixture, service: String = "com.example.api") throws -> Keychain {
        try Keychain(home: fixture.home, app: Fixture.app, service: service)
    }

    @Test("set, get, item attributes, allKeys, remove")
    func basics() throws {
        try Fixture.with { fixture in
            let keychain = try keychain(fixture)
            #expect(try keychain.get("alice") == nil)
            try keychain.label("API token").comment("for tests").accessibility(.whenUnlockedThisDeviceOnly)
                .attributes(["kind": "token"]).set(secret, key: "alice")
            try keychain.set(Data([0, 1, 0xFF]), key: "bob")
            #expect(try keychain.get("alice") == secret)
            #expect(try keychain.getData("bob") == Data([0, 1, 0xFF]))
            #expect(throws: SandboxError.self) { try keychain.get("bob") }
            let item = try #require(try keychain.item("alice"))
            #expect(item.label == "API token")
            #expect(item.comment == "for tests")
            #expect(item.accessibility == .whenUnlockedThisDeviceOnly)
            #expect(item.attributes == ["kind": "token"])
            #expect(try keychain.allKeys() == ["alice", "bob"])
            let other = try self.keychain(fixture, service: "com.example.other")
            #expect(try other.allKeys() == [])
            try keychain.set("new", key: "alice")
            let replaced = try #require(try keychain.item("alice"))
            #expect(replaced.creationDate == item.creationDate)
            #expect(replaced.secret == Data("new".utf8))
            #expect(try keychain.remove("alice"))
            #expect(try keychain.remove("alice") == false)
            #expect(try keychain.allKeys() == ["bob"])
            // Another instance (or process) sees the same items.
            #expect(try self.keychain(fixture).getData("bob") == Data([0, 1, 0xFF]))
        }
    }

    @Test("stored outside the container, under a 0600 device key; no secret in plaintext anywhere")
    func plaintextGrep() throws {
        try Fixture.with { fixture in
            try keychain(fixture).label("label-\(secret)").set(secret, key: "alice")
            let file = fixture.hostPath("Device/Apps/com.example.notes/keychain.plist")
            #expect(FileManager.default.fileExists(atPath: file))
            let key = try FileManager.default.attributesOfItem(atPath: fixture.hostPath("Device/device.key"))
            #expect((key[.posixPermissions] as? Int) == 0o600)
            #expect((key[.size] as? Int) == 32)
            let needles = [Data(secret.utf8), Data(secret.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] })]
            let everything = try #require(FileManager.default.enumerator(atPath: fixture.scratch))
            var scanned = 0
            for case let relative as String in everything {
                let path = fixture.scratch + "/" + relative
                guard let data = FileManager.default.contents(atPath: path) else { continue }
                scanned += 1
                for needle in needles { #expect(data.range(of: needle) == nil, "the secret is in \(relative)") }
            }
            #expect(scanned >= 2)
        }
    }

    @Test("a tampered keychain is a clear error and is not overwritten")
    func tampering() throws {
        try Fixture.with { fixture in
            let keychain = try keychain(fixture)
            try keychain.set(secret, key: "alice")
            try keychain.set("second", key: "bob")
            let path = fixture.hostPath("Device/Apps/com.example.notes/keychain.plist")
            let good = try Data(contentsOf: URL(fileURLWithPath: path))
            // Flip one bit in each of several places: header, rows, seal.
            for offset in stride(from: 8, to: good.count - 33, by: max(1, good.count / 23)) {
                var damaged = good
                damaged[offset] ^= 0x01
                try damaged.write(to: URL(fileURLWithPath: path))
                let reader = try self.keychain(fixture)
                #expect(throws: SandboxError.self, "bit flipped at \(offset)") { try reader.get("alice") }
                let writeError = try #require(throws: SandboxError.self) { try reader.set("x", key: "carol") }
                #expect(writeError.code == .authenticationFailed || writeError.code == .corrupt, "\(writeError)")
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged, "overwritten")
            }
        }
    }

    @Test("rows swapped between accounts fail to open")
    func swappedRows() throws {
        try Fixture.with { fixture in
            let keychain = try keychain(fixture)
            try keychain.set("for alice", key: "alice")
            try keychain.set("for bob!", key: "bob")
            let path = fixture.hostPath("Device/Apps/com.example.notes/keychain.plist")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
            // The two accounts' names have the same length: swap them in place in the file.
            var swapped = bytes
            let alice = try #require(bytes.range(of: Data("alice".utf8)))
            let bob = try #require(bytes.range(of: Data("bob".utf8)))
            swapped.replaceSubrange(alice, with: Data("bobxx".utf8))
            swapped.replaceSubrange(bob, with: Data("ali".utf8))
            try swapped.write(to: URL(fileURLWithPath: path))
            let error = try #require(throws: SandboxError.self) { try self.keychain(fixture).get("alice") }
            #expect(error.code == .authenticationFailed)
        }
    }

    @Test("a truncated keychain is a clear error and is not overwritten")
    func truncation() throws {
        try Fixture.with { fixture in
            let keychain = try keychain(fixture)
            try keychain.set(secret, key: "alice")
            let path = fixture.hostPath("Device/Apps/com.example.notes/keychain.plist")
            let good = try Data(contentsOf: URL(fileURLWithPath: path))
            for length in [0, 7, 40, good.count / 2, good.count - 1] {
                let cut = good.prefix(length)
                try cut.write(to: URL(fileURLWithPath: path))
                let reader = try self.keychain(fixture)
                let error = try #require(throws: SandboxError.self) { try reader.get("alice") }
                #expect(error.code == .corrupt, "\(length): \(error)")
                #expect(error.message.contains("Device/Apps/com.example.notes/keychain.plist"))
                #expect(throws: SandboxError.self) { try reader.set("x", key: "bob") }
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == cut)
            }
        }
    }

    @Test("a keychain copied to another device (another home) does not open")
    func wrongDevice() throws {
        try Fixture.with { fixture in
            try keychain(fixture).set(secret, key: "alice")
            try Fixture.with { other in
                let source = fixture.hostPath("Device/Apps/com.example.notes/keychain.plist")
                let otherApp = Fixture.appIdentifier("com.example.other")
                try other.home.createContainer(for: otherApp)
                try Keychain(home: other.home, app: otherApp).set("x", key: "y")  // makes the other device's key
                _ = try Keychain(home: other.home, app: Fixture.app)  // makes the app's folder
                let target = other.hostPath("Device/Apps/com.example.notes/keychain.plist")
                try FileManager.default.copyItem(atPath: source, toPath: target)
                let error = try #require(throws: SandboxError.self) {
                    try Keychain(home: other.home, app: Fixture.app, service: "com.example.api").get("alice")
                }
                #expect(error.code == .authenticationFailed)
                #expect(error.message.contains("another device"))
            }
        }
    }

    @Test("a keychain copied to another app does not open")
    func wrongApp() throws {
        try Fixture.with { fixture in
            try keychain(fixture).set(secret, key: "alice")
            let otherApp = Fixture.appIdentifier("com.example.thief")
            try fixture.home.createContainer(for: otherApp)
            try FileManager.default.createDirectory(
                atPath: fixture.hostPath("Device/Apps/com.example.thief"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(
                atPath: fixture.hostPath("Device/Apps/com.example.notes/keychain.plist"),
                toPath: fixture.hostPath("Device/Apps/com.example.thief/keychain.plist")
            )
            let error = try #require(throws: SandboxError.self) {
                try Keychain(home: fixture.home, app: otherApp, service: "com.example.api").get("alice")
            }
            #expect(error.code == .authenticationFailed)
        }
    }

    @Test("three processes setting items at once: every item is there and opens")
    func concurrentWriters() async throws {
        try await Fixture.with { fixture in
            // No keychain opened first: the three also race to make the device key.
            try await fixture.runConcurrentWriters("write-keychain", writers: 3, count: 30, prefix: "p")
            let harness = try Keychain(home: fixture.home, app: Fixture.app, service: "harness")
            #expect(try harness.allKeys().count == 90)
            for writer in 0..<3 {
                for index in 0..<30 { #expect(try harness.get("p\(writer)-\(index)") == "secret-p\(writer)-\(index)") }
            }
        }
    }

    @Test("uninstall removes the app's items; other apps keep theirs")
    func uninstall() throws {
        try Fixture.with { fixture in
            try keychain(fixture).set(secret, key: "alice")
            let otherApp = Fixture.appIdentifier("com.example.notes.pro")
            try fixture.home.createContainer(for: otherApp)
            try Keychain(home: fixture.home, app: otherApp).set("keep", key: "k")
            try fixture.home.uninstall(Fixture.app)
            #expect(
                !FileManager.default.fileExists(
                    atPath: fixture.hostPath("Device/Apps/com.example.notes/keychain.plist")))
            #expect(
                !FileManager.default.fileExists(atPath: fixture.hostPath("Device/Apps/com.example.notes/keychain.lock"))
            )
            try fixture.home.createContainer(for: Fixture.app)
            #expect(try keychain(fixture).allKeys() == [])
            #expect(try Keychain(home: fixture.home, app: otherApp).get("k") == "keep")
        }
    }

    // MARK: The device key and rollback

    @Test("a read never makes the device key; the first write sets the device up")
    func readMakesNoKey() throws {
        try Fixture.with { fixture in
            let keychain = try keychain(fixture)
            #expect(try keychain.get("alice") == nil)
            #expect(try keychain.allKeys() == [])
            #expect(!FileManager.default.fileExists(atPath: fixture.hostPath("Device/device.key")))
            try keychain.set(secret, key: "alice")
            #expect(FileManager.default.fileExists(atPath: fixture.hostPath("Device/device.key")))
        }
    }

    @Test("a missing device key is refused clearly, by reads and writes, and never made again while keychains exist")
    func missingDeviceKey() throws {
        try Fixture.with { fixture in
            try keychain(fixture).set(secret, key: "alice")
            let path = fixture.hostPath("Device/Apps/com.example.notes/keychain.plist")
            let before = try Data(contentsOf: URL(fileURLWithPath: path))
            try FileManager.default.removeItem(atPath: fixture.hostPath("Device/device.key"))
            let reader = try keychain(fixture)
            let read = try #require(throws: SandboxError.self) { try reader.get("alice") }
            #expect(read.code == .deviceKeyMissing, "\(read)")
            #expect(read.message.contains("Device/device.key"))
            #expect(read.message.contains("Device/Apps/com.example.notes/keychain.plist"))
            let write = try #require(throws: SandboxError.self) { try reader.set("x", key: "bob") }
            #expect(write.code == .deviceKeyMissing)
            // Another app's first item would need a new key, orphaning this one's: refused too.
            let otherApp = Fixture.appIdentifier("com.example.other")
            try fixture.home.createContainer(for: otherApp)
            let other = try #require(throws: SandboxError.self) {
                try Keychain(home: fixture.home, app: otherApp).set("x", key: "y")
            }
            #expect(other.code == .deviceKeyMissing)
            #expect(!FileManager.default.fileExists(atPath: fixture.hostPath("Device/device.key")))
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        }
    }

    @Test("an older copy of the keychain file, or none, is refused as a rollback and left as it was")
    func rollback() throws {
        try Fixture.with { fixture in
            let keychain = try keychain(fixture)
            try keychain.set("old password", key: "alice")
            let path = fixture.hostPath("Device/Apps/com.example.notes/keychain.plist")
            let old = try Data(contentsOf: URL(fileURLWithPath: path))
            try keychain.set("new password", key: "alice")
            try old.write(to: URL(fileURLWithPath: path))
            for reader in [keychain, try self.keychain(fixture)] {
                let read = try #require(throws: SandboxError.self) { try reader.get("alice") }
                #expect(read.code == .rolledBack, "\(read)")
                #expect(read.message.contains("Device/Apps/com.example.notes/keychain.plist"))
                let write = try #require(throws: SandboxError.self) { try reader.set("x", key: "bob") }
                #expect(write.code == .rolledBack)
            }
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == old)
            try FileManager.default.removeItem(atPath: path)
            let missing = try #require(throws: SandboxError.self) { try self.keychain(fixture).get("alice") }
            #expect(missing.code == .rolledBack)
        }
    }

    /// A keychain written by format version 1 (at `Device/Keychains/com.example.notes.keychain`),
    /// with the device key it was sealed under.
    static let legacyDeviceKey = [UInt8](hex: "5c8f83eab8dfedd9bc65fde88f56cd89cb89dd6aa930d0fdb3ef76c269f11a07")
    static let legacyKeychain = Data(
        base64Encoded:
            "YnBsaXN0MDDWAQIDBAUGBwgJCgsTVmZvcm1hdFd2ZXJzaW9uU2FwcFhrZXlDaGVja1Ryb3dzVHNlYWxfEBVTYW5kYm94U3RvcmUuS2V5Y2hhaW4QAV8QEWNvbS5leGFtcGxlLm5vdGVzTxAgm6JzT/FgP6ZaIRuNu3YX/pBgbxHjZquxeZuVivDAbhChDNMNDg8QERJXc2VydmljZVdhY2NvdW50VnNlYWxlZF8QD2NvbS5leGFtcGxlLmFwaVVhbGljZU8QxwBMRr2pCGfp+Yy+AEUV0AzJUdkRUB5PvHfDzkbXY/QqneW/GSHm8zKIL1pdeXNCwto8x73QE4JVI3GJo6ztouDd1SwSKevHM/V7OBFwN3PkpbRRYOYIS3MxKFX44PyTZVgieZLB5JrxwCNgL5/qD5DbQEFNPORT9gxOwqOnjty3CIxXNwqTU2wDrboz+mgyoIp8Lf2PUU5/AjVxzJz9lvadvs8ggfXz0htLQoe+XC7aLSbRwJrCKkA2ZP8exVBTsgYfGIVOvCxPECBuagK9ZxvZYDSXH4bjlZ36VBv47g2TrmlowkZbjzg8DgAIABUAHAAkACgAMQA2ADsAUwBVAGkAjACOAJUAnQClAKwAvgDEAY4AAAAAAAACAQAAAAAAAAAUAAAAAAAAAAAAAAAAAAABsQ=="
    )

    func installLegacy(_ fixture: Fixture) throws {
        try Data(Self.legacyDeviceKey).write(to: URL(fileURLWithPath: fixture.hostPath("Device/device.key")))
        try FileManager.default.createDirectory(
            atPath: fixture.hostPath("Device/Keychains"), withIntermediateDirectories: true)
        try #require(Self.legacyKeychain).write(
            to: URL(fileURLWithPath: fixture.hostPath("Device/Keychains/com.example.notes.keychain")))
    }

    @Test("a version 1 keychain is moved to Device/Apps, read, and protected from rollback from its next write")
    func legacyKeychain() throws {
        try Fixture.with { fixture in
            try installLegacy(fixture)
            let keychain = try keychain(fixture)
            #expect(
                !FileManager.default.fileExists(atPath: fixture.hostPath("Device/Keychains/com.example.notes.keychain"))
            )
            #expect(try keychain.get("alice") == "from version 1")
            #expect(try keychain.item("alice")?.label == "legacy")
            try keychain.set("now version 2", key: "alice")
            // The version 1 file put back is an older copy now.
            try #require(Self.legacyKeychain).write(
                to: URL(fileURLWithPath: fixture.hostPath("Device/Apps/com.example.notes/keychain.plist")))
            let error = try #require(throws: SandboxError.self) { try self.keychain(fixture).get("alice") }
            #expect(error.code == .rolledBack)
        }
    }

    @Test("a version 1 keychain older than the app's installation is an earlier installation's, and is removed")
    func staleLegacyKeychain() throws {
        try Fixture.with { fixture in
            try installLegacy(fixture)
            let legacy = fixture.hostPath("Device/Keychains/com.example.notes.keychain")
            try FileManager.default.setAttributes(
                [.modificationDate: Date(timeIntervalSinceNow: -86_400)], ofItemAtPath: legacy)
            #expect(try keychain(fixture).get("alice") == nil)
            #expect(!FileManager.default.fileExists(atPath: legacy))
        }
    }

    @Test("the keychain of an app that is not installed is not found")
    func notInstalled() throws {
        try Fixture.with { fixture in
            let error = try #require(throws: SandboxError.self) {
                try Keychain(home: fixture.home, app: Fixture.appIdentifier("com.example.absent"))
            }
            #expect(error.code == .notFound)
            #expect(!FileManager.default.fileExists(atPath: fixture.hostPath("Device/Apps/com.example.absent")))
        }
    }
}
