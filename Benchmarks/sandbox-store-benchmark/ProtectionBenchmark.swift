import Foundation
import Glibc
import SandboxStore

/// Protected (`.complete`, AES-256-GCM in 64 KiB segments) against plain whole-file writes and
/// reads of the same `megabytes` MB, in the same run, both atomic and from the page cache; the
/// goal is ≥ 0.8× the plain throughput. Medians of `runs` runs.
func benchmarkProtection(megabytes: Int, runs: Int, directory: String) throws {
    let scratch = try Scratch(in: directory)
    defer { scratch.remove() }
    let protection = DataProtection(home: scratch.home)
    defer { try? protection.forgetKeysAtRestart() }  // benchmark teardown: no passcode, nothing kept
    let root = scratch.container.root
    let bytes = (0..<(megabytes << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }
    let plainPath = ContainerPath(constant: "Documents/plain.bin")
    let protectedPath = ContainerPath(constant: "Documents/protected.bin")
    try protection.write([0], to: protectedPath, in: root, protection: .complete)  // makes the key bag
    var plainWrite: [Double] = []
    var protectedWrite: [Double] = []
    var plainRead: [Double] = []
    var protectedRead: [Double] = []
    // Each timed step starts with nothing dirty (`sync`, not timed), so neither side pays for the
    // other's writeback; whoever goes first alternates.
    // The process's CPU seconds (every thread, user and system) of each step go to `cpu[step]`:
    // what a side costs whatever else the machine runs.
    var cpu: [String: [Double]] = [:]
    func timed(_ step: String, _ body: () throws -> Void) throws -> Double {
        sync()
        let before = processCPUSeconds()
        let seconds = try time(body)
        cpu[step, default: []].append(processCPUSeconds() - before)
        return seconds
    }
    for run in 0..<runs {
        // Alternate who goes first, so neither side always inherits the other's page-cache state.
        let plainFirst = run % 2 == 0
        if plainFirst {
            plainWrite.append(
                try timed("plain write") { try root.writeContents(bytes, to: plainPath, options: [.atomic]) })
        }
        protectedWrite.append(
            try timed("protected write") {
                try protection.write(bytes, to: protectedPath, in: root, protection: .complete)
            })
        if !plainFirst {
            plainWrite.append(
                try timed("plain write") { try root.writeContents(bytes, to: plainPath, options: [.atomic]) })
        }
        let readPlain = { _ = try root.readContents(of: plainPath, maximumSize: bytes.count) }
        if plainFirst { plainRead.append(try timed("plain read", readPlain)) }
        protectedRead.append(
            try timed("protected read") {
                _ = try protection.readContents(of: protectedPath, in: root, maximumSize: bytes.count)
            })
        if !plainFirst { plainRead.append(try timed("plain read", readPlain)) }
    }
    let size = Double(megabytes)
    report(
        "protection: write \(megabytes) MiB atomically (ours: .complete; peer: the same write unprotected)",
        ours: size / median(protectedWrite), peer: size / median(plainWrite), unit: "MiB/s", lowerIsBetter: false)
    reportRatios("write", plain: plainWrite, protected: protectedWrite)
    report(
        "protection: read \(megabytes) MiB (ours: .complete, decrypted; peer: the same read unprotected)",
        ours: size / median(protectedRead), peer: size / median(plainRead), unit: "MiB/s", lowerIsBetter: false)
    reportRatios("read", plain: plainRead, protected: protectedRead)
    for what in ["write", "read"] {
        let plainCPU = median(cpu["plain \(what)"] ?? [])
        let protectedCPU = median(cpu["protected \(what)"] ?? [])
        print(
            "protection: \(what) CPU time (all threads) per run, medians: plain \(String(format: "%.1f", plainCPU * 1000)) ms, protected \(String(format: "%.1f", protectedCPU * 1000)) ms (\(String(format: "%.2f", protectedCPU / plainCPU))×)"
        )
    }
    let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "unknown\n"
    print("protection: load average \(load)", terminator: "")
}

/// Each run's throughput ratio (plain time / protected time), and their spread.
private func reportRatios(_ what: String, plain: [Double], protected: [Double]) {
    let ratios = zip(plain, protected).map { $0 / $1 }
    let listed = ratios.map { String(format: "%.2f", $0) }.joined(separator: " ")
    print(
        "protection: \(what) ratio per run \(listed); min \(String(format: "%.2f", ratios.min() ?? 0)), median \(String(format: "%.2f", median(ratios))), max \(String(format: "%.2f", ratios.max() ?? 0))"
    )
}

/// CPU seconds the process has used so far, every thread, user and system.
private func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}
