// Measures SandboxStore against the goals of issue 4 and against Foundation's own peers, in the
// same run: preferences writes (each durable) against UserDefaults + synchronize(), cached reads,
// keychain get/set latency, and property-list encode/decode of a 10 MB document against
// PropertyListSerialization. Medians of --runs runs. Not run by CI.
//
//     swift run -c release sandbox-store-benchmark [--writes 10000] [--write-runs 1] [--reads 10000000]
//         [--items 1000] [--megabytes 10] [--runs 3] [--dir PATH]
//     swift run -c release sandbox-store-benchmark --protection-only [--protection-megabytes 64] [--runs 3]
import ArgumentParser
import Foundation
import SandboxStore

extension Preferences.Keys {
    static let benchmark = Preferences.Key<Double>("benchmark", default: 0)
}

let settings = Settings.parseOrExit()
print("sandbox-store-benchmark: \(settings.runs) runs, medians; scratch in \(settings.directory)")
if settings.protectionOnly {
    try benchmarkProtection(megabytes: settings.protectionMegabytes, runs: settings.runs, directory: settings.directory)
    exit(0)
}

func report(_ name: String, ours: Double, peer: Double?, unit: String, lowerIsBetter: Bool = true) {
    var line = "\(name): ours \(String(format: "%.3f", ours)) \(unit)"
    if let peer {
        let ratio = lowerIsBetter ? peer / ours : ours / peer
        line +=
            ", peer \(String(format: "%.3f", peer)) \(unit), ours is \(String(format: "%.2f", ratio))× the peer's speed"
    }
    print(line)
}

// MARK: Preferences writes

do {
    // One run of `--writes` writes by default: each write is its own sample (p50, p99), and the
    // throughput is the whole run's.
    var ours: [Double] = []
    var peer: [Double] = []
    var ourTotal: [Double] = []
    var peerTotal: [Double] = []
    for run in 0..<settings.writeRuns {
        let scratch = try Scratch(in: settings.directory)
        defer { scratch.remove() }
        let preferences = try scratch.container.preferences()
        ourTotal.append(
            try time {
                for index in 0..<settings.writes {
                    ours.append(try time { try preferences.setValue(.integer(index), forKey: "key-\(index % 100)") })
                }
            })
        let suite = "sandbox-store-benchmark-\(getpid())-\(run)"
        guard let defaults = UserDefaults(suiteName: suite) else { fatalError("UserDefaults(suiteName:) failed") }
        peerTotal.append(
            time {
                for index in 0..<settings.writes {
                    peer.append(
                        time {
                            defaults.set(index, forKey: "key-\(index % 100)")
                            defaults.synchronize()
                        })
                }
            })
        defaults.removePersistentDomain(forName: suite)
        let config = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"] ?? NSHomeDirectory() + "/.config"
        try? FileManager.default.removeItem(atPath: "\(config)/\(suite).plist")  // the peer's leftover, if any
    }
    let ourRate = Double(settings.writes) / median(ourTotal)
    let peerRate = Double(settings.writes) / median(peerTotal)
    report(
        "preferences: \(settings.writes) single-key writes (ours: locked, merged, atomic, fsync'd; UserDefaults: set + synchronize())",
        ours: ourRate, peer: peerRate, unit: "writes/s", lowerIsBetter: false)
    print(
        String(
            format: "  per write: ours p50 %.3f ms, p99 %.3f ms; UserDefaults p50 %.3f ms, p99 %.3f ms",
            percentile(ours, 50) * 1e3, percentile(ours, 99) * 1e3, percentile(peer, 50) * 1e3,
            percentile(peer, 99) * 1e3
        ))
}

// MARK: Preferences reads

do {
    let scratch = try Scratch(in: settings.directory)
    defer { scratch.remove() }
    let preferences = try scratch.container.preferences()
    try preferences.set(0.5, for: .benchmark)
    let suite = "sandbox-store-benchmark-reads-\(getpid())"
    guard let defaults = UserDefaults(suiteName: suite) else { fatalError("UserDefaults(suiteName:) failed") }
    defaults.set(0.5, forKey: "benchmark")
    var ours: [Double] = []
    var peer: [Double] = []
    for _ in 0..<settings.runs {
        var sum = 0.0
        ours.append(time { for _ in 0..<settings.reads { sum += preferences[.benchmark] } })
        var peerSum = 0.0
        let peerReads = max(1, settings.reads / 10)
        peer.append(time { for _ in 0..<peerReads { peerSum += defaults.double(forKey: "benchmark") } } * 10)
        precondition(sum > 0 && peerSum > 0)
    }
    defaults.removePersistentDomain(forName: suite)
    report(
        "preferences: cached reads of one key (goal ≥ 10,000,000/s)", ours: Double(settings.reads) / median(ours),
        peer: Double(settings.reads) / median(peer), unit: "reads/s", lowerIsBetter: false)
}

// MARK: Keychain latency

do {
    var setP50: [Double] = []
    var setP99: [Double] = []
    var getP50: [Double] = []
    var getP99: [Double] = []
    for _ in 0..<settings.runs {
        let scratch = try Scratch(in: settings.directory)
        defer { scratch.remove() }
        let keychain = try Keychain(home: scratch.home, app: scratch.container.identifier, service: "bench")
        var sets: [Double] = []
        for index in 0..<settings.items {
            sets.append(try time { try keychain.set("secret-\(index)", key: "account-\(index)") })
        }
        var gets: [Double] = []
        for index in 0..<settings.items {
            var value: String?
            gets.append(try time { value = try keychain.get("account-\(index)") })
            precondition(value == "secret-\(index)")
        }
        setP50.append(percentile(sets, 50))
        setP99.append(percentile(sets, 99))
        getP50.append(percentile(gets, 50))
        getP99.append(percentile(gets, 99))
    }
    print(
        String(
            format: "keychain: %d items: set p50 %.3f ms, p99 %.3f ms (each durable); get p50 %.1f µs, p99 %.1f µs",
            settings.items, median(setP50) * 1e3, median(setP99) * 1e3, median(getP50) * 1e6, median(getP99) * 1e6
        ))
}

// MARK: Property lists

do {
    let document = Document(megabytes: settings.megabytes)
    let tree = document.foundationTree
    var encodeOurs: [Double] = []
    var encodePeer: [Double] = []
    var decodeOurs: [Double] = []
    var decodePeer: [Double] = []
    var size = 0
    for _ in 0..<settings.runs {
        var bytes: [UInt8] = []
        encodeOurs.append(try time { bytes = try PropertyList.encode(document) })
        size = bytes.count
        var data = Data()
        encodePeer.append(
            try time { data = try PropertyListSerialization.data(fromPropertyList: tree, format: .binary, options: 0) })
        decodeOurs.append(try time { _ = try PropertyList.decode(Document.self, from: bytes) })
        decodePeer.append(try time { _ = try PropertyListSerialization.propertyList(from: data, format: nil) })
    }
    let megabytes = Double(size) / 1e6
    print(String(format: "property lists: a %.1f MB binary document (%d records)", megabytes, document.records.count))
    report(
        "  encode", ours: megabytes / median(encodeOurs), peer: megabytes / median(encodePeer), unit: "MB/s",
        lowerIsBetter: false)
    report(
        "  decode", ours: megabytes / median(decodeOurs), peer: megabytes / median(decodePeer), unit: "MB/s",
        lowerIsBetter: false)
}

// MARK: Data Protection

try benchmarkProtection(megabytes: settings.protectionMegabytes, runs: settings.runs, directory: settings.directory)
