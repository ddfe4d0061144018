import Foundation
import Sandbox
import Testing

@Suite("Lifecycle: create, list, uninstall")
struct LifecycleTests {
    @Test("create, list and uninstall; a second create is refused")
    func createListUninstall() throws {
        try withTemporaryHome { home, _ in
            let notes = try AppIdentifier("com.example.notes")
            let mail = try AppIdentifier("com.example.mail")
            try home.createContainer(for: notes)
            try home.createContainer(for: mail)
            #expect(try home.installedApps() == [mail, notes])
            let again = #expect(throws: SandboxError.self) { try home.createContainer(for: notes) }
            #expect(again?.code == .alreadyExists)

            let container = try home.container(for: notes)
            try writeFile(container, "Documents/a/b.txt", bytes: 10)
            let bundle = container.hostPath(for: .bundle)
            let removed = try home.uninstall(notes)
            #expect(removed >= 11)  // 9 data directories, a/, b.txt, bundle dirs
            #expect(try home.installedApps() == [mail])
            #expect(!FileManager.default.fileExists(atPath: container.homeDirectory))
            #expect(!FileManager.default.fileExists(atPath: bundle))
            let missing = #expect(throws: SandboxError.self) { try home.container(for: notes) }
            #expect(missing?.code == .notFound)
            #expect(missing?.message.contains("Create or install the app first.") == true)
            let twice = #expect(throws: SandboxError.self) { try home.uninstall(notes) }
            #expect(twice?.code == .notFound)
        }
    }

    @Test("a bundle directory is installed under its .app name")
    func bundleInstall() throws {
        try withTemporaryHome { home, scratch in
            let files = ["Notes": "binary", "en.lproj/Localizable.strings": "\"hi\" = \"Hello\";"]
            let source = try signedBundle(in: scratch, home: home, files: files).path
            let container = try home.createContainer(for: AppIdentifier("com.example.notes"), bundleDirectory: source)
            #expect(container.bundleName == "Notes.app")
            let bundle = try container.bundle(preferredLanguages: [])
            #expect(try bundle.readContents(of: ContainerPath("Notes")) == Array("binary".utf8))
            #expect(try bundle.fileExists(at: ContainerPath("en.lproj/Localizable.strings")))
        }
    }

    @Test("a failed install leaves nothing behind")
    func failedInstall() throws {
        try withTemporaryHome { home, scratch in
            let app = try AppIdentifier("com.example.notes")
            let error = #expect(throws: SandboxError.self) {
                try home.createContainer(for: app, bundleDirectory: scratch + "/missing.app")
            }
            #expect(error?.code == .notFound)
            #expect(try home.installedApps().isEmpty)
            #expect(try home.root.contentsOfDirectory(at: ContainerPath("Containers/Data")).isEmpty)
            #expect(try home.root.contentsOfDirectory(at: ContainerPath("Containers/Bundle")).isEmpty)
        }
    }
}
