import Foundation
import Sandbox
import Testing

@Suite("App Groups: purge and df")
struct AppGroupPurgeTests {
    let group: AppGroupIdentifier
    init() throws { group = try AppGroupIdentifier("group.com.example.shared") }

    @Test("purge evicts a group's Library/Caches, never what a member's presenter holds nor anything else")
    func purgesGroupCaches() throws {
        try withTemporaryHome { home, scratch in
            let notes = try installMember("com.example.notes", of: [group.rawValue], in: home, scratch: scratch)
            let shared = try notes.groupContainer(group).root
            try shared.createDirectory(at: ContainerPath("Library/Caches/staging"))
            for path in ["Library/Caches/old", "Library/Caches/staging/part", "Library/Preferences/p.plist", "kept"] {
                try shared.writeContents([UInt8](repeating: 1, count: 4096), to: ContainerPath(path))
            }
            let daemon = try ContainerPresenter(
                home: home, app: notes.identifier, kind: .daemon, description: "sandboxd")
            try daemon.hold([group.heldPath(ContainerPath("Library/Caches/staging"))])
            let report = try home.purge()
            #expect(report.items.map(\.owner) == [.group(group)])
            #expect(report.items.map(\.path) == ["Library/Caches/old"])
            #expect(report.items.first?.app == nil)
            #expect(report.skippedGroups == nil)
            #expect(try !shared.itemExists(at: ContainerPath("Library/Caches/old")))
            for path in ["Library/Caches/staging/part", "Library/Preferences/p.plist", "kept"] {
                #expect(try shared.itemExists(at: ContainerPath(path)), "\(path)")
            }
            daemon.close()
            #expect(try home.purge().items.map(\.path) == ["Library/Caches/staging/part"])
        }
    }

    @Test("a group's Library/Caches replaced by a link into an app's container is skipped, never followed")
    func linkedCachesSkipped() throws {
        try withTemporaryHome { home, scratch in
            let notes = try installMember("com.example.notes", of: [group.rawValue], in: home, scratch: scratch)
            try writeFile(notes, "Documents/secret", bytes: 6)
            let caches = try notes.groupContainer(group).hostPath + "/Library/Caches"
            try FileManager.default.removeItem(atPath: caches)
            try FileManager.default.createSymbolicLink(
                atPath: caches, withDestinationPath: notes.homeDirectory + "/Documents")
            let report = try home.purge()
            #expect(report.items.isEmpty)
            #expect(report.skippedGroups?.map(\.group) == [group])
            #expect(report.skippedGroups?.first?.code == "not-a-directory")
            #expect(try notes.root.itemExists(at: ContainerPath("Documents/secret")))
            let storage = try home.storageValues()
            #expect(storage.skippedGroups?.map(\.group) == [group])
            #expect(storage.groups.isEmpty)
        }
    }

    @Test("df lists each group container with its size and counts its caches as purgeable")
    func storageListsGroups() throws {
        try withTemporaryHome { home, scratch in
            let notes = try installMember("com.example.notes", of: [group.rawValue], in: home, scratch: scratch)
            let before = try home.storageValues().purgeableBytes
            let shared = try notes.groupContainer(group).root
            try shared.writeContents([UInt8](repeating: 1, count: 65536), to: ContainerPath("Library/Caches/c"))
            try shared.writeContents([UInt8](repeating: 1, count: 65536), to: ContainerPath("Library/d"))
            let storage = try home.storageValues()
            let listed = try #require(storage.groups.first)
            #expect(storage.groups.map(\.group) == [group])
            #expect(listed.purgeableBytes >= 65536)
            #expect(listed.allocatedBytes >= listed.purgeableBytes + 65536)
            #expect(storage.purgeableBytes == before + listed.purgeableBytes)
            #expect(storage.skippedGroups == nil)
        }
    }

    @Test("an app's purged item encodes as before (app, bytes, lastUsed, path); a group's names the group")
    func itemJSON() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let date = Date(timeIntervalSince1970: 0)
        let app = PurgedItem(
            owner: .app(try AppIdentifier("com.example.notes")), path: "tmp/a", bytes: 4096, lastUsed: date)
        #expect(
            String(decoding: try encoder.encode(app), as: UTF8.self)
                == #"{"app":"com.example.notes","bytes":4096,"lastUsed":"1970-01-01T00:00:00Z","path":"tmp/a"}"#)
        let shared = PurgedItem(owner: .group(group), path: "Library/Caches/c", bytes: 1, lastUsed: date)
        let encoded = try encoder.encode(shared)
        #expect(
            String(decoding: encoded, as: UTF8.self)
                == #"{"bytes":1,"group":"group.com.example.shared","lastUsed":"1970-01-01T00:00:00Z","path":"Library/Caches/c"}"#
        )
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(PurgedItem.self, from: encoded) == shared)
        #expect(try decoder.decode(PurgedItem.self, from: try encoder.encode(app)) == app)
    }
}
