import Foundation
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
    for _ in 0..<runs {
        plainWrite.append(try time { try root.writeContents(bytes, to: plainPath, options: [.atomic]) })
        protectedWrite.append(
            try time { try protection.write(bytes, to: protectedPath, in: root, protection: .complete) })
        plainRead.append(try time { _ = try root.readContents(of: plainPath, maximumSize: bytes.count) })
        protectedRead.append(
            try time { _ = try protection.readContents(of: protectedPath, in: root, maximumSize: bytes.count) })
    }
    let size = Double(megabytes)
    report(
        "protection: write \(megabytes) MiB atomically (ours: .complete; peer: the same write unprotected)",
        ours: size / median(protectedWrite), peer: size / median(plainWrite), unit: "MiB/s", lowerIsBetter: false)
    report(
        "protection: read \(megabytes) MiB (ours: .complete, decrypted; peer: the same read unprotected)",
        ours: size / median(protectedRead), peer: size / median(plainRead), unit: "MiB/s", lowerIsBetter: false)
}
