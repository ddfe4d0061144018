import Foundation
import SandboxWatch
import Testing

extension WatcherTests {
    @Suite("sandbox watch, open-in and process-inbox")
    struct CLITests {
        /// The `sandbox` executable, built next to the test bundle.
        static let executable: String = {
            var directory = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            while !FileManager.default.isExecutableFile(atPath: directory.appendingPathComponent("sandbox").path)
                && directory.path != "/"
            {
                directory.deleteLastPathComponent()
            }
            return directory.appendingPathComponent("sandbox").path
        }()

        /// Starts `sandbox ARGUMENTS…` with output going to files (no pipe can fill and block it).
        func start(
            _ fixture: TemporaryContainer, _ arguments: [String], output name: String
        ) throws -> (Process, stdout: String, stderr: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: Self.executable)
            process.arguments = arguments
            var environment = ProcessInfo.processInfo.environment
            environment["SANDBOX_HOME"] = fixture.home.location
            process.environment = environment
            let out = fixture.scratch + "/\(name).out"
            let err = fixture.scratch + "/\(name).err"
            for path in [out, err] { _ = FileManager.default.createFile(atPath: path, contents: nil) }
            process.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: out))
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: err))
            process.standardInput = FileHandle.nullDevice
            try process.run()
            return (process, out, err)
        }

        func run(
            _ fixture: TemporaryContainer, _ arguments: String...
        ) async throws -> (status: Int32, stdout: String, stderr: String) {
            let (process, out, err) = try start(fixture, arguments, output: "run")
            #expect(await eventually(timeout: .seconds(30)) { !process.isRunning })
            process.waitUntilExit()
            return (process.terminationStatus, try read(out), try read(err))
        }

        func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

        @Test("open-in prints the delivered path")
        func openIn() async throws {
            try await TemporaryContainer.with { fixture in
                let file = fixture.scratch + "/report.pdf"
                try HostFiles.write(file)
                let first = try await run(fixture, "open-in", TemporaryContainer.app, file)
                #expect(first.status == 0, "\(first.stderr)")
                #expect(first.stdout == "Documents/Inbox/report.pdf\n")
                let second = try await run(fixture, "open-in", TemporaryContainer.app, file, "--json")
                #expect(second.stdout == "{\"path\":\"Documents/Inbox/report 2.pdf\"}\n")
                let missing = try await run(fixture, "open-in", TemporaryContainer.app, fixture.scratch + "/none")
                #expect(missing.status != 0)
                #expect(missing.stderr.hasPrefix("sandbox: ") && missing.stderr.contains("[not-found]"))
            }
        }

        @Test("watch --json prints one object per event until SIGTERM")
        func watchJSON() async throws {
            try await TemporaryContainer.with { fixture in
                let (process, out, err) = try start(
                    fixture, ["watch", TemporaryContainer.app, "--json"], output: "watch")
                defer { if process.isRunning { process.terminate() } }
                #expect(await eventually { ((try? read(err)) ?? "").contains("Watching Documents") })
                try HostFiles.write(fixture.documents + "/hello.txt")
                let line = "{\"event\":\"added\",\"path\":\"Documents/hello.txt\",\"type\":\"file\"}"
                #expect(await eventually { ((try? read(out)) ?? "").contains(line) })
                #expect(
                    await eventually {
                        ((try? read(out)) ?? "").contains("{\"event\":\"ready\",\"path\":\"Documents/hello.txt\"}")
                    })
                kill(process.processIdentifier, SIGTERM)
                #expect(await eventually { !process.isRunning })
                process.waitUntilExit()
                #expect(process.terminationReason == .exit && process.terminationStatus == 0)
                for text in try read(out).split(separator: "\n") {
                    let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
                    #expect(object?["event"] is String && object?["path"] is String)
                }
            }
        }

        @Test("watch prints a name that is not UTF-8 escaped, in text and in JSON")
        func watchNonUTF8Name() async throws {
            try await TemporaryContainer.with { fixture in
                let (text, out, err) = try start(fixture, ["watch", TemporaryContainer.app], output: "text")
                defer { if text.isRunning { text.terminate() } }
                let (json, jsonOut, jsonErr) = try start(
                    fixture, ["watch", TemporaryContainer.app, "--json"], output: "json")
                defer { if json.isRunning { json.terminate() } }
                for log in [err, jsonErr] {
                    #expect(await eventually { ((try? read(log)) ?? "").contains("Watching Documents") })
                }
                try HostFiles.write(in: fixture.documents, rawName: [0x66, 0xFF])
                #expect(await eventually { ((try? read(out)) ?? "").contains("ready Documents/f\\xFF\n") })
                let line = "{\"event\":\"ready\",\"path\":\"Documents/f\\\\xFF\"}"
                #expect(
                    await eventually { ((try? read(jsonOut)) ?? "").contains(line) }, "\((try? read(jsonOut)) ?? "")")
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
                let (process, out, _) = try start(
                    fixture,
                    ["process-inbox", TemporaryContainer.app, "--into", "Documents/Imported", "--pause", "20"],
                    output: "first")
                #expect(await eventually { ((try? read(out)) ?? "").split(separator: "\n").count >= 5 })
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                #expect(process.terminationReason == .uncaughtSignal)
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
