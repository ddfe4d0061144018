import Foundation
import SandboxTesting
import Testing

@testable import SandboxWatch

extension WatcherTests {
    @Suite("FolderMonitor on inotify")
    struct FolderMonitorTests {
        let documents: ContainerPath = "Documents"

        func monitor(
            _ fixture: TemporaryContainer, quiet: Duration = .milliseconds(100), recursive: Bool = true
        ) throws -> (FolderMonitor, EventRecorder) {
            let monitor = try FolderMonitor(
                watching: documents, in: fixture.root, configuration: .init(recursive: recursive, quietPeriod: quiet))
            return (monitor, EventRecorder(monitor))
        }

        /// A barrier: creates a file after everything else and waits for its `ready`. Every event
        /// caused earlier (including `ready`s due earlier) has been delivered when it returns.
        func barrier(
            _ fixture: TemporaryContainer, _ recorder: EventRecorder, _ name: String = "barrier"
        ) async throws -> Bool {
            try HostFiles.write(fixture.documents + "/" + name)
            return await recorder.wait(for: .ready(ContainerPath(stringLiteral: "Documents/" + name)))
        }

        @Test("add, remove, rename (paired), move out and in")
        func addRemoveRename() async throws {
            try await TemporaryContainer.with { fixture in
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                let docs = fixture.documents
                try HostFiles.write(docs + "/a.txt")
                #expect(await recorder.wait(for: .ready("Documents/a.txt")))
                try HostFiles.rename(docs + "/a.txt", docs + "/b.txt")
                #expect(
                    await recorder.wait(
                        for: .renamed(from: "Documents/a.txt", to: "Documents/b.txt", isDirectory: false)))
                try HostFiles.mkdir(docs + "/d")
                #expect(await recorder.wait(for: .added("Documents/d", isDirectory: true)))
                try HostFiles.rename(docs + "/b.txt", docs + "/d/c.txt")
                #expect(
                    await recorder.wait(
                        for: .renamed(from: "Documents/b.txt", to: "Documents/d/c.txt", isDirectory: false)))
                try HostFiles.rename(docs + "/d", docs + "/e")
                #expect(await recorder.wait(for: .renamed(from: "Documents/d", to: "Documents/e", isDirectory: true)))
                try HostFiles.unlink(docs + "/e/c.txt")
                #expect(await recorder.wait(for: .removed("Documents/e/c.txt", isDirectory: false)))
                try HostFiles.rmdir(docs + "/e")
                #expect(await recorder.wait(for: .removed("Documents/e", isDirectory: true)))
                // Out of the watched folder and back in.
                let outside = fixture.container.hostPath(for: .tmp) + "/x"
                try HostFiles.write(docs + "/x")
                try HostFiles.rename(docs + "/x", outside)
                #expect(await recorder.wait(for: .removed("Documents/x", isDirectory: false)))
                try HostFiles.rename(outside, docs + "/y")
                #expect(await recorder.wait(for: .added("Documents/y", isDirectory: false)))
                #expect(await recorder.wait(for: .ready("Documents/y")))
            }
        }

        @Test("ready after close-write, once; latency printed")
        func readyAfterCloseWrite() async throws {
            try await TemporaryContainer.with { fixture in
                let quiet = Duration.milliseconds(100)
                let (monitor, recorder) = try monitor(fixture, quiet: quiet)
                defer { monitor.cancel() }
                var closes: [String: ContinuousClock.Instant] = [:]
                for index in 0..<100 {
                    let name = "f\(index)"
                    closes[name] = try HostFiles.write(fixture.documents + "/" + name)
                    #expect(
                        await recorder.wait(
                            for: .added(ContainerPath(stringLiteral: "Documents/" + name), isDirectory: false)))
                }
                #expect(
                    await recorder.wait { events in events.count { if case .ready = $0 { true } else { false } } == 100
                    })
                #expect(try await barrier(fixture, recorder))
                var added: [Duration] = []
                var ready: [Duration] = []
                for received in recorder.received {
                    switch received.event {
                    case .added(let path, _):
                        if let close = closes[path.lastComponent ?? ""] { added.append(received.at - close) }
                    case .ready(let path):
                        if let close = closes[path.lastComponent ?? ""] { ready.append(received.at - close - quiet) }
                    default: break
                    }
                }
                #expect(
                    recorder.count {
                        if case .ready(let path) = $0 { path.lastComponent?.hasPrefix("f") == true } else { false }
                    } == 100)
                print("close → added event (as the consumer receives it): \(Percentiles(added))")
                print("close → ready, minus the \(quiet) quiet period: \(Percentiles(ready))")
            }
        }

        @Test("a writer that reopens per chunk and an atomic-rename producer each give exactly one ready")
        func exactlyOneReady() async throws {
            try await TemporaryContainer.with { fixture in
                // A quiet period well above the writer's gaps, even on a loaded machine.
                let (monitor, recorder) = try monitor(fixture, quiet: .milliseconds(300))
                defer { monitor.cancel() }
                let docs = fixture.documents
                for chunk in 0..<5 {
                    try HostFiles.write(docs + "/chunks.log", Array("chunk \(chunk)\n".utf8), append: chunk > 0)
                }
                try HostFiles.write(docs + "/.report.pdf.tmp", [UInt8](repeating: 7, count: 100_000))
                try HostFiles.rename(docs + "/.report.pdf.tmp", docs + "/report.pdf")
                // Ready events of different files are not ordered by close time: wait for each, then
                // for a later barrier, so that any extra ready would have arrived too.
                #expect(await recorder.wait(for: .ready("Documents/chunks.log")))
                #expect(await recorder.wait(for: .ready("Documents/report.pdf")))
                #expect(try await barrier(fixture, recorder))
                #expect(recorder.count { $0 == .ready("Documents/chunks.log") } == 1)
                #expect(recorder.count { $0 == .ready("Documents/report.pdf") } == 1)
                #expect(recorder.count { $0 == .ready("Documents/.report.pdf.tmp") } == 0)
                #expect(recorder.count { $0 == .added("Documents/chunks.log", isDirectory: false) } == 1)
                #expect(recorder.count { if case .modified = $0 { true } else { false } } == 0)
            }
        }

        @Test("no premature ready for a writer that pauses with the file open, before or after its first write")
        func pausedWriters() async throws {
            try await TemporaryContainer.with { fixture in
                let (monitor, recorder) = try monitor(fixture, quiet: .milliseconds(100))
                defer { monitor.cancel() }
                let midWrite = fixture.documents + "/mid-write.bin"
                let beforeWrite = fixture.documents + "/before-write.bin"
                let first = try HostFiles.open(midWrite, O_WRONLY | O_CREAT | O_TRUNC)
                try HostFiles.writeAll(first, [UInt8](repeating: 1, count: 4096), midWrite)
                let second = try HostFiles.open(beforeWrite, O_WRONLY | O_CREAT | O_TRUNC)
                #expect(await recorder.wait(for: .added("Documents/before-write.bin", isDirectory: false)))
                // The writers pause for 300 ms (three quiet periods) with their files open.
                try await Task.sleep(for: .milliseconds(300))
                #expect(recorder.count { if case .ready = $0 { true } else { false } } == 0)
                try HostFiles.writeAll(first, [UInt8](repeating: 2, count: 4096), midWrite)
                try HostFiles.writeAll(second, [UInt8](repeating: 3, count: 4096), beforeWrite)
                #expect(recorder.count { if case .ready = $0 { true } else { false } } == 0)
                try HostFiles.close(first, midWrite)
                try HostFiles.close(second, beforeWrite)
                #expect(await recorder.wait(for: .ready("Documents/mid-write.bin")))
                #expect(await recorder.wait(for: .ready("Documents/before-write.bin")))
            }
        }

        @Test("folders created and filled at once are seen completely")
        func foldersFilledAtOnce() async throws {
            try await TemporaryContainer.with { fixture in
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                var expected: Set<String> = []
                for tree in 0..<10 {
                    var directory = fixture.documents
                    var relative = "Documents"
                    for level in 1...3 {
                        directory += "/t\(tree)-\(level)"
                        relative += "/t\(tree)-\(level)"
                        try HostFiles.mkdir(directory)
                        expected.insert(relative)
                        for file in 0..<5 {
                            try HostFiles.write(directory + "/f\(file)")
                            expected.insert(relative + "/f\(file)")
                        }
                    }
                }
                let complete = await recorder.wait { events in
                    Set(events.compactMap { if case .added(let path, _) = $0 { path.description } else { nil } })
                        .isSuperset(of: expected)
                }
                #expect(complete)
                let added = recorder.events.compactMap {
                    if case .added(let path, _) = $0 { path.description } else { nil }
                }
                #expect(added.count == expected.count, "each item added exactly once")
            }
        }

        @Test("a burst of 2,000 files: every one added")
        func burst() async throws {
            try await TemporaryContainer.with { fixture in
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                for index in 0..<2_000 { try HostFiles.write(fixture.documents + "/burst-\(index)", []) }
                #expect(
                    await recorder.wait { events in
                        events.count { if case .added = $0 { true } else { false } } >= 2_000
                    })
                #expect(recorder.count { if case .overflow = $0 { true } else { false } } == 0)
            }
        }

        @Test("the watched folder deleted: folder-removed ends the sequence")
        func folderDeleted() async throws {
            try await TemporaryContainer.with { fixture in
                try fixture.root.createDirectory(at: "Documents/sub")
                try HostFiles.write(fixture.documents + "/sub/f")
                let monitor = try FolderMonitor(watching: "Documents/sub", in: fixture.root)
                let recorder = EventRecorder(monitor)
                #expect(try fixture.root.removeItem(at: "Documents/sub", recursively: true) == 2)
                #expect(await recorder.wait(for: .folderRemoved("Documents/sub")))
                #expect(await eventually { recorder.hasEnded })
                #expect(recorder.events.last == .folderRemoved("Documents/sub"))
            }
        }

        @Test("a missing folder, a file, a symlink and '..' are refused with clear errors")
        func refusals() async throws {
            try await TemporaryContainer.with { fixture in
                let missing = #expect(throws: SandboxError.self) {
                    try FolderMonitor(watching: "Documents/none", in: fixture.root)
                }
                #expect(missing?.code == .notFound)
                try HostFiles.write(fixture.documents + "/file")
                let file = #expect(throws: SandboxError.self) {
                    try FolderMonitor(watching: "Documents/file", in: fixture.root)
                }
                #expect(file?.code == .notADirectory)
                #expect(symlink("/tmp", fixture.documents + "/link") == 0)
                let link = #expect(throws: SandboxError.self) {
                    try FolderMonitor(watching: "Documents/link", in: fixture.root)
                }
                #expect(link?.code == .notADirectory)
                let dots = #expect(throws: SandboxError.self) {
                    try FolderMonitor(watching: "Documents/../Documents", in: fixture.root)
                }
                #expect(dots?.code == .invalidPath)
            }
        }

        @Test("an idle monitor's reader thread neither runs nor wakes up")
        func idle() async throws {
            try await TemporaryContainer.with { fixture in
                let (monitor, recorder) = try monitor(fixture)
                defer { monitor.cancel() }
                try HostFiles.write(fixture.documents + "/settled")
                #expect(await recorder.wait(for: .ready("Documents/settled")))  // nothing pending after it
                let readers = try ReaderThreads()
                #expect(!readers.tasks.isEmpty)
                let before = try readers.activity()
                // A measurement window, not a synchronisation: nothing happens in the folder.
                try await Task.sleep(for: .seconds(1))
                let after = try readers.activity()
                #expect(after == before, "context switches and CPU ticks of the reader threads")
            }
        }

        /// Each cancel waits for the inotify descriptor to be closed, which takes the kernel a few
        /// milliseconds (it waits for an RCU grace period), so this test takes several seconds.
        @Test("1,000 monitors created and cancelled leave no descriptor open")
        func noDescriptorLeaks() async throws {
            try await TemporaryContainer.with { fixture in
                // One cycle first: Foundation and Dispatch open a few descriptors of their own, once.
                try FolderMonitor(watching: documents, in: fixture.root).cancel()
                let before = monitorDescriptors()
                for _ in 0..<1_000 {
                    let monitor = try FolderMonitor(watching: documents, in: fixture.root)
                    monitor.cancel()
                }
                // Nothing is left open. (The runtime may close descriptors of its own meanwhile.) The
                // last reader thread releases its wake-up channel just after it reports its exit.
                func opened() -> [String: String] { monitorDescriptors().filter { before[$0.key] != $0.value } }
                let clean = await eventually { opened().isEmpty }
                #expect(clean, "left open: \(opened())")
            }
        }
    }
}

/// p50, p90, p99 and max of some durations, in milliseconds.
struct Percentiles: CustomStringConvertible {
    let sorted: [Double]

    init(_ durations: [Duration]) {
        sorted = durations.map { Double($0.components.seconds) * 1000 + Double($0.components.attoseconds) / 1e15 }
            .sorted()
    }

    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return .nan }
        return sorted[min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1)]
    }

    var description: String {
        let format = { (value: Double) in String(format: "%.3f ms", value) }
        return
            "n=\(sorted.count) p50 \(format(percentile(50))) p90 \(format(percentile(90))) p99 \(format(percentile(99))) max \(format(sorted.last ?? .nan))"
    }
}

/// The monitor reader threads of this process (named `sandbox-watch …`), read from procfs.
struct ReaderThreads {
    let tasks: [String]

    init() throws {
        tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").filter { task in
            let comm = (try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)) ?? ""
            return comm.hasPrefix("sandbox-watch")
        }
    }

    /// Per thread: voluntary and involuntary context switches, user and system CPU ticks.
    func activity() throws -> [String: [Int]] {
        var result: [String: [Int]] = [:]
        for task in tasks {
            let status = try String(contentsOfFile: "/proc/self/task/\(task)/status", encoding: .utf8)
            let switches = status.split(separator: "\n").filter {
                $0.hasSuffix("ctxt_switches") || $0.contains("ctxt_switches:")
            }
            .compactMap { Int($0.split(separator: "\t").last ?? "") }
            let stat = try String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8)
            // Fields after the command name (which is in parentheses): utime and stime are 14th and 15th.
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            let ticks = fields.count > 12 ? [Int(fields[11]) ?? -1, Int(fields[12]) ?? -1] : []
            result[task] = switches + ticks
        }
        return result
    }
}
