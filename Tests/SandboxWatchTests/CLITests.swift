import Foundation
import Sandbox
import SandboxTesting
import SandboxWatch
import Testing

extension WatcherTests {
    @Suite("sandbox watch, open-in and process-inbox")
    struct CLITests {
        /// Starts `sandbox ARGUMENTS…` against the fixture's home, its output going to files.
        func start(_ fixture: TemporaryContainer, _ arguments: [String]) throws -> RunningProgram {
            try BuiltProgram("sandbox").start(
                arguments, environment: ["SANDBOX_HOME": fixture.home.location], outputIn: fixture.scratch)
        }

        func run(_ fixture: TemporaryContainer, _ arguments: String...) async throws -> ProgramOutput {
            try await start(fixture, arguments).finish()
        }

        /// Installs `app` from a signed bundle whose Info.plist declares `keys` (raw XML).
        func install(_ app: String, declaring keys: String, in fixture: TemporaryContainer) throws {
            let bundle = fixture.scratch + "/\(app).app"
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
            try Data("<plist version=\"1.0\"><dict>\(keys)</dict></plist>".utf8).write(
                to: URL(fileURLWithPath: bundle + "/Info.plist"))
            let key = SigningKey()
            try fixture.home.trust(key.publicKey)
            let identifier = try AppIdentifier(app)
            try BundleSigner.sign(
                bundleAt: bundle, with: key,
                identity: BundleIdentity(identifier: identifier, version: BundleVersion("1")))
            try fixture.home.createContainer(for: identifier, bundleDirectory: bundle)
        }

        @Test("open-in prints the delivered path, the file's type and whether the app opens in place")
        func openIn() async throws {
            try await TemporaryContainer.with { fixture in
                let app = "com.example.reader"
                try install(
                    app,
                    declaring: "<key>LSSupportsOpeningDocumentsInPlace</key><true/><key>CFBundleDocumentTypes</key>"
                        + "<array><dict><key>CFBundleTypeName</key><string>PDF</string><key>LSItemContentTypes</key>"
                        + "<array><string>com.adobe.pdf</string></array></dict></array>",
                    in: fixture)
                let file = fixture.scratch + "/report.pdf"
                try HostFiles.write(file)
                let first = try await run(fixture, "open-in", app, file)
                #expect(first.status == 0, "\(first.stderr)")
                #expect(
                    first.stdout
                        == "Documents/Inbox/report.pdf\n  type: com.adobe.pdf (document type 'PDF'); opens documents in place: yes\n"
                )
                let second = try await run(fixture, "open-in", app, file, "--json")
                #expect(
                    second.stdout
                        == #"{"contentType":"com.adobe.pdf","documentType":{"contentTypes":["com.adobe.pdf"],"extensions":[],"name":"PDF"},"path":"Documents/Inbox/report 2.pdf","supportsOpeningDocumentsInPlace":true}"#
                        + "\n")
                // A document no type accepts is refused, and nothing is delivered.
                let text = fixture.scratch + "/notes.txt"
                try HostFiles.write(text)
                let refused = try await run(fixture, "open-in", app, text)
                #expect(refused.status == 1)
                #expect(refused.stderr.contains("'com.example.reader' does not open 'notes.txt' (public.plain-text)"))
                #expect(refused.stderr.hasSuffix("[document-type-not-accepted]\n"), "\(refused.stderr)")
                let placeholder = try await run(fixture, "open-in", TemporaryContainer.app, file)
                #expect(placeholder.stderr.contains("declares no document types"), "\(placeholder.stderr)")
                let inbox = fixture.home.location + "/Containers/Data/\(app)/Documents/Inbox"
                #expect(
                    try FileManager.default.contentsOfDirectory(atPath: inbox).sorted() == [
                        "report 2.pdf", "report.pdf",
                    ])
                let missing = try await run(fixture, "open-in", app, fixture.scratch + "/none.pdf")
                #expect(missing.status != 0)
                #expect(missing.stderr.hasPrefix("sandbox: ") && missing.stderr.contains("[not-found]"))
            }
        }

        @Test("watch --json prints one object per event until SIGTERM")
        func watchJSON() async throws {
            try await TemporaryContainer.with { fixture in
                let watch = try start(fixture, ["watch", TemporaryContainer.app, "--json"])
                defer { watch.signal(SIGKILL) }  // a no-op once it has ended
                #expect(try await eventually { try watch.standardError().contains("Watching Documents") })
                try HostFiles.write(fixture.documents + "/hello.txt")
                let line = "{\"event\":\"added\",\"path\":\"Documents/hello.txt\",\"type\":\"file\"}"
                #expect(try await eventually { try watch.standardOutput().contains(line) })
                let ready = "{\"event\":\"ready\",\"path\":\"Documents/hello.txt\"}"
                #expect(try await eventually { try watch.standardOutput().contains(ready) })
                watch.signal(SIGTERM)
                #expect(await watch.exit(timeout: .seconds(20)) == .exited(0))
                for text in try watch.standardOutput().split(separator: "\n") {
                    let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                    #expect(object?["event"] is String && object?["path"] is String)
                }
            }
        }

        @Test("watch prints a name that is not UTF-8 escaped, in text and in JSON")
        func watchNonUTF8Name() async throws {
            try await TemporaryContainer.with { fixture in
                let text = try start(fixture, ["watch", TemporaryContainer.app])
                defer { text.signal(SIGKILL) }  // a no-op once it has ended
                let json = try start(fixture, ["watch", TemporaryContainer.app, "--json"])
                defer { json.signal(SIGKILL) }
                #expect(try await eventually { try text.standardError().contains("Watching Documents") })
                #expect(try await eventually { try json.standardError().contains("Watching Documents") })
                try HostFiles.write(in: fixture.documents, rawName: [0x66, 0xFF])
                #expect(try await eventually { try text.standardOutput().contains("ready Documents/f\\xFF\n") })
                let line = "{\"event\":\"ready\",\"path\":\"Documents/f\\\\xFF\"}"
                let printed = try await eventually { try json.standardOutput().contains(line) }
                let output = try json.standardOutput()
                #expect(printed, "\(output)")
            }
        }

        @Test("process-inbox killed with SIGKILL mid-way and run again: every item moved exactly once")
        func processInboxAfterKill() async throws {
            try await TemporaryContainer.with { fixture in
                let inbox = Inbox(container: fixture.container)
                let count = 40
                for index in 0..<count {
                    let file = fixture.scratch + "/item-\(index).txt"
                    try HostFiles.write(file, Array("item \(index)".utf8))
                    try inbox.deliver(hostFile: file)
                }
                let first = try start(
                    fixture, ["process-inbox", TemporaryContainer.app, "--into", "Documents/Imported", "--pause", "20"])
                #expect(try await eventually { try first.standardOutput().split(separator: "\n").count >= 5 })
                first.signal(SIGKILL)
                #expect(await first.exit.signal == SIGKILL)
                let imported = try fixture.root.fileNames(at: "Documents/Imported").count
                #expect(imported < count, "killed mid-way")
                let second = try await run(
                    fixture, "process-inbox", TemporaryContainer.app, "--into", "Documents/Imported")
                #expect(second.status == 0, "\(second.stderr)")
                let names = try fixture.root.fileNames(at: "Documents/Imported").sorted()
                #expect(names == (0..<count).map { "item-\($0).txt" }.sorted())
                for name in names {
                    let contents = try fixture.root.readContents(of: ContainerPath("Documents/Imported/" + name))
                    #expect(String(decoding: contents, as: UTF8.self) == "item " + name.dropFirst(5).dropLast(4))
                }
                #expect(try fixture.root.contentsOfDirectory(at: "Documents/Inbox").isEmpty)
            }
        }
    }
}
