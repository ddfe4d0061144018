import Foundation
import Sandbox
import Testing

@Suite("App Groups: group containers")
struct AppGroupContainerTests {
    let group: AppGroupIdentifier
    init() throws { group = try AppGroupIdentifier("group.com.example.shared") }

    @Test("members share one container with iOS's layout; a non-member is refused")
    func sharedBetweenMembers() throws {
        try withTemporaryHome { home, scratch in
            let notes = try installMember("com.example.notes", of: [group.rawValue], in: home, scratch: scratch)
            let widget = try installMember("com.example.widget", of: [group.rawValue], in: home, scratch: scratch)
            let other = try installMember(
                "com.example.other", of: ["group.com.example.other"], in: home, scratch: scratch)
            let fromNotes = try notes.groupContainer(group)
            #expect(fromNotes.hostPath == home.location + "/Containers/Shared/AppGroup/group.com.example.shared")
            for directory in AppGroupContainer.layout {
                #expect(try fromNotes.root.attributes(at: directory)?.type == .directory)
            }
            try fromNotes.root.writeContents(Array("hello".utf8), to: ContainerPath("Library/Caches/note"))
            let fromWidget = try widget.groupContainer(group)
            #expect(try fromWidget.root.readContents(of: ContainerPath("Library/Caches/note")) == Array("hello".utf8))
            let error = #expect(throws: SandboxError.self) { try other.groupContainer(group) }
            #expect(error?.code == .notAGroupMember)
            #expect(
                error?.message.contains("'com.example.other' is not a member of App Group 'group.com.example.shared'")
                    == true)
            #expect(error?.message.contains("lists only group.com.example.other") == true)
        }
    }

    @Test("a link one member plants in the group never leads another into an app's container")
    func plantedLink() throws {
        try withTemporaryHome { home, scratch in
            let notes = try installMember("com.example.notes", of: [group.rawValue], in: home, scratch: scratch)
            let widget = try installMember("com.example.widget", of: [group.rawValue], in: home, scratch: scratch)
            try writeFile(notes, "Documents/secret", bytes: 6)
            let planted = try widget.groupContainer(group)
            try FileManager.default.createSymbolicLink(
                atPath: planted.hostPath + "/absolute", withDestinationPath: notes.homeDirectory + "/Documents")
            try FileManager.default.createSymbolicLink(
                atPath: planted.hostPath + "/relative", withDestinationPath: "../../../Data/com.example.notes/Documents"
            )
            let victim = try notes.groupContainer(group)
            for link in ["absolute/secret", "relative/secret"] {
                let error = #expect(throws: SandboxError.self) {
                    try victim.root.readContents(of: ContainerPath(link))
                }
                #expect(error?.code == .escapesContainer, "\(link)")
            }
        }
    }

    @Test("a link where the group container goes is refused, not followed")
    func linkAsContainer() throws {
        try withTemporaryHome { home, scratch in
            let notes = try installMember("com.example.notes", of: [group.rawValue], in: home, scratch: scratch)
            try home.root.createDirectory(
                at: ContainerPath("Containers/Shared/AppGroup"), withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(
                atPath: home.location + "/Containers/Shared/AppGroup/\(group.rawValue)",
                withDestinationPath: "../../Data/com.example.notes")
            let error = #expect(throws: SandboxError.self) { try notes.groupContainer(group) }
            #expect(error?.code == .notADirectory)
        }
    }

    @Test("uninstall removes a group container with its last member only")
    func uninstallLastMember() throws {
        try withTemporaryHome { home, scratch in
            let notes = try installMember("com.example.notes", of: [group.rawValue], in: home, scratch: scratch)
            let widget = try installMember("com.example.widget", of: [group.rawValue], in: home, scratch: scratch)
            _ = try installMember("com.example.other", of: [], in: home, scratch: scratch)
            try notes.groupContainer(group).root.writeContents([1], to: ContainerPath("Library/Caches/x"))
            try home.uninstall(AppIdentifier("com.example.other"))
            try home.uninstall(notes.identifier)
            #expect(try home.groupContainerIdentifiers() == [group])
            #expect(try widget.groupContainer(group).root.readContents(of: ContainerPath("Library/Caches/x")) == [1])
            try home.uninstall(widget.identifier)
            #expect(try home.groupContainerIdentifiers().isEmpty)
            #expect(try home.root.contentsOfDirectory(at: ContainerPath("Containers/Shared/AppGroup")).isEmpty)
        }
    }
}
