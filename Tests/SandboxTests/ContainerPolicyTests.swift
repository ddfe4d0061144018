import Foundation
import Sandbox
import Testing

@Suite("The container's policy and host paths, checked on disk")
struct ContainerPolicyTests {
    private func link(_ container: Container, _ path: String, to target: String) throws {
        try FileManager.default.createSymbolicLink(
            atPath: container.homeDirectory + "/" + path, withDestinationPath: target)
    }

    private func expectRefused(
        _ container: Container,
        _ action: DirectoryPolicy.Action,
        _ path: String,
        mentioning text: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let target = try ContainerPath(path)
        let error = #expect(throws: SandboxError.self, sourceLocation: sourceLocation) {
            try container.checkPolicy(allowing: action, at: target)
        }
        #expect(
            error?.code == .readOnly, "\(action) \(path): \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(
            error?.message.contains(text) == true, "\(action) \(path): \(String(describing: error?.message))",
            sourceLocation: sourceLocation)
    }

    private func expectAllowed(
        _ container: Container, _ action: DirectoryPolicy.Action, _ path: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let target = try ContainerPath(path)
        #expect(throws: Never.self, "\(action) \(path)", sourceLocation: sourceLocation) {
            try container.checkPolicy(allowing: action, at: target)
        }
    }

    @Test("the Inbox is read and delete only; preferences only through their API")
    func rules() throws {
        try withTemporaryHome { home, _ in
            let container = try home.createContainer(for: AppIdentifier("com.example.notes"))
            try writeFile(container, "Documents/Inbox/mail.eml", bytes: 10)
            try writeFile(container, "Library/Preferences/com.example.notes.plist", bytes: 10)
            let inboxRule = "may only read and delete there"
            let preferencesRule = "written only through the preferences API"
            try expectRefused(container, .create, "Documents/Inbox/new.txt", mentioning: inboxRule)
            try expectRefused(container, .create, "Documents/Inbox/sub/deeper", mentioning: inboxRule)
            try expectRefused(container, .modify, "Documents/Inbox/mail.eml", mentioning: inboxRule)
            try expectAllowed(container, .delete, "Documents/Inbox/mail.eml")
            try expectAllowed(container, .read, "Documents/Inbox/mail.eml")
            try expectRefused(
                container, .create, "Library/Preferences/com.example.notes.plist", mentioning: preferencesRule)
            try expectRefused(
                container, .delete, "Library/Preferences/com.example.notes.plist", mentioning: preferencesRule)
            try expectRefused(container, .modify, "Library/Preferences", mentioning: preferencesRule)
            try expectRefused(container, .delete, "Library", mentioning: "'Library/Preferences' is written only")
            try expectAllowed(container, .delete, "Documents")
            for path in ["Documents/a.txt", "Library/Caches/c", "Library/Application Support/db", "tmp/t", "Library/x"]
            {
                for action in DirectoryPolicy.Action.allCases { try expectAllowed(container, action, path) }
            }
        }
    }

    @Test("'..' spellings and links that lead into the Inbox or Preferences are judged where they lead")
    func spellingsAndLinks() throws {
        try withTemporaryHome { home, _ in
            let container = try home.createContainer(for: AppIdentifier("com.example.notes"))
            try writeFile(container, "Documents/Inbox/mail.eml", bytes: 10)
            try container.root.createDirectory(at: ContainerPath("Documents/x"))
            try link(container, "Documents/in", to: "Inbox")
            try link(container, "Documents/up", to: "../Library/Preferences")
            try link(container, "Documents/mail", to: "Inbox/mail.eml")
            try link(container, "tmp/chain", to: "../Documents/in")
            let rule = "may only read and delete there"
            try expectRefused(container, .create, "Documents/x/../Inbox/f", mentioning: rule)
            try expectRefused(container, .create, "Documents/missing/../Inbox/f", mentioning: rule)
            try expectRefused(
                container, .create, "Documents/in/f",
                mentioning: "'Documents/in/f' (which leads to 'Documents/Inbox/f')")
            try expectRefused(container, .create, "tmp/chain/f", mentioning: rule)
            try expectRefused(container, .create, "Documents/up/evil.plist", mentioning: "preferences API")
            try expectRefused(container, .modify, "Documents/mail", mentioning: rule)
            try expectRefused(container, .create, "Documents/in/../in/f", mentioning: rule)
            // The links themselves are in Documents: removing them is fine.
            try expectAllowed(container, .delete, "Documents/in")
            try expectAllowed(container, .delete, "Documents/mail")
            try expectAllowed(container, .create, "Documents/x/f")
        }
    }

    @Test("a host path is never one through a link the app planted")
    func hostPaths() throws {
        try withTemporaryHome { home, scratch in
            let container = try home.createContainer(for: AppIdentifier("com.example.notes"))
            #expect(try container.resolvedHostPath(for: .caches) == container.hostPath(for: .caches))
            #expect(try container.resolvedHostPath(for: .bundle) == container.hostPath(for: .bundle))
            try FileManager.default.removeItem(atPath: container.hostPath(for: .documents))
            try link(container, "Documents", to: scratch)
            let out = #expect(throws: SandboxError.self) { try container.resolvedHostPath(for: .documents) }
            #expect(out?.code == .escapesContainer)
            #expect(
                out?.message.contains(
                    "'Documents' in the container of 'com.example.notes' is a symbolic link that leads out") == true)
            let inbox = #expect(throws: SandboxError.self) { try container.resolvedHostPath(for: .inbox) }
            #expect(inbox?.code == .escapesContainer)

            try FileManager.default.moveItem(
                atPath: container.hostPath(for: .library), toPath: container.homeDirectory + "/Elsewhere")
            try link(container, "Library", to: "Elsewhere")
            let inside = #expect(throws: SandboxError.self) { try container.resolvedHostPath(for: .caches) }
            #expect(inside?.code == .notADirectory)
            #expect(
                inside?.message.contains(
                    "'Library' in the container of 'com.example.notes' is a symbolic link, not the caches directory")
                    == true)

            try FileManager.default.removeItem(atPath: container.hostPath(for: .tmp))
            let missing = #expect(throws: SandboxError.self) { try container.resolvedHostPath(for: .tmp) }
            #expect(missing?.code == .notFound)
        }
    }
}
