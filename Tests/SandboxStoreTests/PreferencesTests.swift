import Foundation
import SandboxStore
import SandboxTesting
import Testing

extension Preferences.Keys {
    static let volume = Preferences.Key<Double>("volume", default: 0.8)
    static let launches = Preferences.Key<Int>("launches", default: 0)
    static let name = Preferences.Key<String>("name", default: "anonymous")
    static let lastOpened = Preferences.Key<Date>("lastOpened", default: Date(timeIntervalSinceReferenceDate: 0))
    static let tags = Preferences.Key<[String]>("tags", default: [])
}

@Suite("Preferences")
struct PreferencesTests {
    @Test("typed keys: defaults, registered defaults, set, remove")
    func typedKeys() throws {
        try Fixture.with { fixture in
            let preferences = try fixture.container.preferences()
            #expect(preferences[.volume] == 0.8)
            preferences.register(defaults: ["volume": .double(0.3)])
            #expect(preferences[.volume] == 0.3)
            try preferences.set(0.5, for: .volume)
            try preferences.set(["a", "b"], for: .tags)
            #expect(preferences[.volume] == 0.5)
            #expect(preferences[.tags] == ["a", "b"])
            try preferences.remove(.volume)
            #expect(preferences[.volume] == 0.3)
            try preferences.setValue(.string("loud"), forKey: "volume")
            #expect(preferences[.volume] == 0.3, "a value of another type reads as the default")
        }
    }

    @Test("the file is a binary plist at Library/Preferences/<app-id>.plist that a new instance reads back exactly")
    func persistence() throws {
        try Fixture.with { fixture in
            let when = Date(timeIntervalSinceReferenceDate: 784_111_777.987_654)
            let preferences = try fixture.container.preferences()
            try preferences.update { values in
                values["when"] = .date(when)
                values["real"] = .double(2)
                values["integer"] = .integer(2)
                values["flag"] = .bool(true)
                values["blob"] = .data(Data([1, 2, 3]))
                values["nested"] = .dictionary(["list": .array([.integer(1), .string("two"), .double(3.5)])])
                values["text"] = .string("héllo ✓")
                values["negative"] = .integer(-9_000_000_000)
            }
            let path = ContainerPath(constant: "Library/Preferences/com.example.notes.plist")
            #expect(preferences.path == path)
            #expect(try fixture.container.root.readContents(of: path).starts(with: Array("bplist00".utf8)))
            let again = try fixture.container.preferences()
            #expect(again.storedValues == preferences.storedValues)
            #expect(again.value(forKey: "when") == .date(when), "sub-second precision is kept")
            #expect(again.value(forKey: "real") == .double(2), "a whole real stays a real")
            #expect(again.value(forKey: "integer") == .integer(2))
        }
    }

    @Test("an XML preferences file (written by hand or another tool) is read, and the next write makes it binary")
    func xmlFile() throws {
        try Fixture.with { fixture in
            let path = ContainerPath(constant: "Library/Preferences/com.example.notes.plist")
            try fixture.container.root.writeContents(
                try PropertyList.encode(["name": "xml", "launches": "x"], format: .xml), to: path)
            let preferences = try fixture.container.preferences()
            #expect(preferences[.name] == "xml")
            try preferences.set(2, for: .launches)
            #expect(try fixture.container.root.readContents(of: path).starts(with: Array("bplist00".utf8)))
            #expect(
                try fixture.container.preferences().storedValues == ["name": .string("xml"), "launches": .integer(2)])
        }
    }

    @Test("an XML preferences file keeps its types: a whole real, -0.0, 2^64-1, a date before 1582")
    func xmlTypes() throws {
        try Fixture.with { fixture in
            let path = ContainerPath(constant: "Library/Preferences/com.example.notes.plist")
            let document =
                "<plist><dict><key>r</key><real>2.0</real><key>z</key><real>-0.0</real><key>u</key><integer>18446744073709551615</integer><key>d</key><date>1367-03-24T12:26:40Z</date></dict></plist>"
            try fixture.container.root.writeContents(Array(document.utf8), to: path)
            let values = try fixture.container.preferences().storedValues
            #expect(values["r"] == .double(2))
            #expect(values["z"].map { if case .double(let zero) = $0 { zero.sign == .minus } else { false } } == true)
            #expect(values["u"] == .unsignedInteger(.max))
            #expect(values["d"] == .date(Date(timeIntervalSinceReferenceDate: -20_000_000_000)))
            // Written back (binary) and read again, nothing changes.
            try fixture.container.preferences().setValue(.bool(true), forKey: "touched")
            var again = try fixture.container.preferences().storedValues
            again["touched"] = nil
            #expect(again == values)
        }
    }

    @Test("a damaged preferences file is a clear error and is never overwritten")
    func damagedFile() throws {
        try Fixture.with { fixture in
            let path = ContainerPath(constant: "Library/Preferences/com.example.notes.plist")
            let good = try PropertyList.encode(["a": 1, "b": 2])
            for damaged in [
                Array(good.prefix(good.count - 5)), Array("garbage".utf8),
                try PropertyList.encode(["not", "a", "dict"]),
            ] {
                try fixture.container.root.writeContents(damaged, to: path)
                let opened = try #require(throws: SandboxError.self) { try fixture.container.preferences() }
                #expect(opened.code == .corrupt)
                #expect(opened.message.contains("Library/Preferences/com.example.notes.plist"))
                #expect(try fixture.container.root.readContents(of: path) == damaged)
            }
            // Damaged after opening: the next write refuses and leaves it.
            try fixture.container.root.removeItem(at: path)
            let preferences = try fixture.container.preferences()
            try preferences.set(1, for: .launches)
            try fixture.container.root.writeContents(Array("garbage".utf8), to: path)
            let written = try #require(throws: SandboxError.self) { try preferences.set(2, for: .launches) }
            #expect(written.code == .corrupt)
            #expect(try fixture.container.root.readContents(of: path) == Array("garbage".utf8))
        }
    }

    @Test("the binary reader survives every truncation and bit flip")
    func readerFuzz() throws {
        try Fixture.with { fixture in
            let path = ContainerPath(constant: "Library/Preferences/com.example.notes.plist")
            let good = try PropertyList.encode([
                "a": PreferenceValue.array([.integer(1), .double(2.5), .string("x")]),
                "b": .dictionary(["c": .date(Date()), "d": .data(Data([1]))]),
                "e": .string("ünïcode"),
            ])
            for length in stride(from: 0, to: good.count, by: 3) {
                try fixture.container.root.writeContents(good.prefix(length), to: path)
                #expect(throws: SandboxError.self) { try fixture.container.preferences() }
            }
            for index in good.indices {
                var damaged = good
                damaged[index] ^= 0x41
                try fixture.container.root.writeContents(damaged, to: path)
                _ = try? fixture.container.preferences()  // any outcome but a crash
            }
        }
    }

    @Test("changes: this instance's writes, and another instance's once the file changes")
    func changeSequence() async throws {
        try await Fixture.with { fixture in
            let preferences = try fixture.container.preferences()
            let changes = preferences.changes(checkingEvery: .milliseconds(10))
            try preferences.set("ada", for: .name)
            let local = try await first(of: changes) { $0.key == "name" }
            #expect(local == PreferenceChange(key: "name", oldValue: nil, newValue: .string("ada"), origin: .local))
            let other = try fixture.container.preferences()
            try other.set(7, for: .launches)
            let external = try await first(of: changes) { $0.key == "launches" }
            #expect(external?.newValue == .integer(7))
            #expect(external?.origin == .external)
            #expect(preferences[.launches] == 7)
        }
    }

    @Test("changes made by another process reach the sequence")
    func otherProcess() async throws {
        try await Fixture.with { fixture in
            let preferences = try fixture.container.preferences()
            let updates = preferences.updates(.volume, checkingEvery: .milliseconds(10))
            let writer = try fixture.start(
                "sandbox", ["defaults", "com.example.notes", "write", "volume", "0.25", "--type", "double"])
            let seen = try await first(of: updates) { $0 == 0.25 }
            #expect(seen == 0.25)
            #expect(try await writer.finish().status == 0)
        }
    }

    @Test("four processes writing 200 keys each to one file: all 800 are there")
    func fourWriters() async throws {
        try await Fixture.with { fixture in
            try await fixture.runConcurrentWriters("write-preferences", writers: 4, count: 200, prefix: "w")
            let values = try fixture.container.preferences().storedValues
            #expect(values.count == 800)
            for writer in 0..<4 {
                for index in 0..<200 { #expect(values["w\(writer)-\(index)"] == .integer(index)) }
            }
        }
    }

    @Test("synchronize sees another instance's write; reads between come from memory")
    func synchronize() throws {
        try Fixture.with { fixture in
            let first = try fixture.container.preferences()
            let second = try fixture.container.preferences()
            try second.set(3, for: .launches)
            #expect(first[.launches] == 0)
            try first.synchronize()
            #expect(first[.launches] == 3)
            // A write merges: nothing the other instance wrote is lost.
            try second.set("grace", for: .name)
            try first.set(4, for: .launches)
            #expect(first[.name] == "grace")
            try second.synchronize()
            #expect(second[.launches] == 4)
        }
    }
}
