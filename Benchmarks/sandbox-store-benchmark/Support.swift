import ArgumentParser
import Foundation
import Glibc
import SandboxStore

/// A percentile of some values (nearest rank), `nan` when there are none.
func percentile(_ values: [Double], _ p: Double) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    return sorted[max(0, min(sorted.count - 1, Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1))]
}

func median(_ values: [Double]) -> Double { percentile(values, 50) }

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}

/// Seconds taken by `body`.
func time(_ body: () throws -> Void) rethrows -> Double {
    let clock = ContinuousClock()
    let start = clock.now
    try body()
    return (clock.now - start).seconds
}

/// A sandbox home with one app in a fresh directory, under `parent`.
struct Scratch {
    let directory: String
    let home: SandboxHome
    let container: Container

    init(in parent: String, app: String = "com.example.storebench") throws {
        var template = Array("\(parent)/sandbox-store-bench-XXXXXX".utf8CString)
        guard let created = mkdtemp(&template) else { throw POSIXError(.EIO) }
        directory = String(cString: created)
        home = try SandboxHome(location: directory + "/home")
        container = try home.createContainer(for: AppIdentifier(app))
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: directory)  // cleanup of a scratch folder
    }
}

/// The command line: `--writes N --write-runs N --reads N --items N --megabytes N --runs N --dir PATH`.
struct Settings: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-store-benchmark",
        abstract: "Preferences, keychain and property lists against UserDefaults and PropertyListSerialization."
    )

    @Option(help: "How many durable preference writes each side makes.") var writes = 10_000
    @Option(help: "How many times the writes run (the median is reported).") var writeRuns = 1
    @Option(help: "How many cached preference reads each run makes.") var reads = 10_000_000
    @Option(help: "How many keychain items each run sets and gets.") var items = 1_000
    @Option(help: "The size of the property-list document, in MB.") var megabytes = 10
    @Option(help: "How many times the other cases run.") var runs = 3
    @Option(help: "The size of the file protected and read back, in MiB.") var protectionMegabytes = 64
    @Flag(help: "Run only the Data Protection case: protected against plain write and read throughput.")
    var protectionOnly = false
    @Option(name: .customLong("dir"), help: "The folder the scratch homes are made in (default: the current one).")
    var directory = FileManager.default.currentDirectoryPath
}

/// A document of about `megabytes` MB of every property-list type, as a Codable value and as the
/// `[String: Any]` tree `PropertyListSerialization` takes.
struct Document: Codable {
    struct Record: Codable {
        var id: Int
        var title: String
        var score: Double
        var done: Bool
        var created: Date
        var blob: Data
        var tags: [String]
    }

    var records: [Record]

    init(megabytes: Int) {
        // About 132 bytes a record in binary form.
        let count = megabytes * 1_000_000 / 132
        records = (0..<count).map { index in
            Record(
                id: index, title: "Record number \(index) of the benchmark", score: Double(index) / 7,
                done: index % 2 == 0, created: Date(timeIntervalSinceReferenceDate: Double(index) + 0.5),
                blob: Data((0..<64).map { UInt8(truncatingIfNeeded: index &+ $0) }), tags: ["t\(index % 10)", "bench"]
            )
        }
    }

    var foundationTree: [String: Any] {
        [
            "records": records.map { record -> [String: Any] in
                [
                    "id": record.id, "title": record.title, "score": record.score, "done": record.done,
                    "created": record.created, "blob": record.blob, "tags": record.tags,
                ]
            }
        ]
    }
}
