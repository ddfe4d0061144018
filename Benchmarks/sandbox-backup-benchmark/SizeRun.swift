// One size of the curve: a fresh folder with the container and both repositories, the first
// backup, the incremental and (unless --no-restore) the restore, each ours against restic, then
// the folder removed.
import BenchmarkSupport
import Foundation
import Sandbox

/// What one size measured.
struct SizeResult {
    var files: Int
    var bigMiB: Int
    var rows: [Comparison] = []
    /// Peak RSS in KiB by row name: (ours, restic), the highest of the runs.
    var peaks: [String: (ours: Int, theirs: Int)] = [:]
    /// What the first backup left in each repository.
    var objects: (ours: (count: Int, bytes: Int64), theirs: (count: Int, bytes: Int64)) = ((0, 0), (0, 0))
    /// The seconds making the container took, and the load (1-minute average) before and after.
    var setupSeconds = 0.0
    var load = (before: "", after: "")
}

/// The 1-, 5- and 15-minute load averages, as `uptime` prints them.
func loadAverages() -> String {
    guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "?" }  // shown only
    return text.split(separator: " ").prefix(3).joined(separator: " ")
}

struct SizeRun {
    let configuration: Configuration
    let files: Int
    /// This executable (re-run as the worker) and restic.
    let me: String
    let restic: String

    func run() throws -> SizeResult {
        var template = Array("\(configuration.directory)/sandbox-backup-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            fatalError("cannot create a directory in \(configuration.directory)")
        }
        let base = String(cString: made)
        defer { _ = try? timeTool("/bin/rm", ["-rf", base]) }  // teardown only
        var result = SizeResult(files: files, bigMiB: configuration.bigMiB)
        result.load.before = loadAverages()
        print(
            "# \(configuration.bigMiB) MiB + \(files) small files of \(smallFileSize) bytes, \(configuration.runs) runs, in \(base), load \(result.load.before)"
        )
        fflush(nil)  // all streams: the log shows each size as it ends
        let home = try SandboxHome(location: base + "/home")
        var documents = ""
        result.setupSeconds = try time {
            documents = try makeContainer(home: home, bigMiB: configuration.bigMiB, files: files)
        }
        let passwordFile = base + "/password"
        try Data("benchmark password".utf8).write(to: URL(fileURLWithPath: passwordFile))
        let ours = base + "/ours-repo"
        let theirs = base + "/restic-repo"
        // restic's cache beside its repository, so it goes with the size's folder.
        let resticEnvironment = [
            "RESTIC_PASSWORD_FILE": passwordFile, "RESTIC_REPOSITORY": theirs,
            "RESTIC_CACHE_DIR": base + "/restic-cache",
        ]
        let bytes = containerBytes(bigMiB: configuration.bigMiB, files: files)

        /// Runs the worker's `command` ("backup" or "restore"), its peak kept under `label`.
        func oursRun(_ command: String, _ label: String) -> Double {
            let (seconds, rss) = spawn([me, "worker", command, home.location, ours, passwordFile])
            result.peaks[label, default: (0, 0)].ours = max(result.peaks[label, default: (0, 0)].ours, rss)
            return seconds
        }
        func theirsRun(_ label: String, _ arguments: [String]) -> Double {
            let (seconds, rss) = spawn([restic] + arguments + ["-q"], environment: resticEnvironment)
            result.peaks[label, default: (0, 0)].theirs = max(result.peaks[label, default: (0, 0)].theirs, rss)
            return seconds
        }
        func freshRepositories() throws {
            _ = try timeTool("/bin/rm", ["-rf", ours, theirs])
            _ = spawn([restic, "init", "-q"], environment: resticEnvironment)
        }
        /// Runs `prepare` (untimed), then ours and theirs, each going first every other run.
        func measure(
            _ row: inout Comparison, prepare: (Int) throws -> Void, ours: () -> Double, theirs: () -> Double
        ) rethrows {
            for run in 0..<configuration.runs {
                try prepare(run)
                if run % 2 == 1 { row.theirs.append(theirs()) }
                row.ours.append(ours())
                if run % 2 == 0 { row.theirs.append(theirs()) }
            }
            result.rows.append(row)
        }

        var first = Comparison(name: "first backup", peer: "restic backup", bytes: bytes)
        try measure(
            &first, prepare: { _ in try freshRepositories() }, ours: { oursRun("backup", "first backup") },
            theirs: { theirsRun("first backup", ["backup", documents]) })
        // What the first backup left in each repository (after the last run's fresh repositories).
        result.objects = (repositoryObjects(ours), repositoryObjects(theirs))

        let changed = configuration.bigMiB > 0 ? "1 MiB + 1 file changed" : "1 file changed"
        var incremental = Comparison(name: "incremental (\(changed))", peer: "restic backup", bytes: nil)
        try measure(
            &incremental,
            prepare: { run in
                if configuration.bigMiB > 0 {
                    let handle = try FileHandle(forUpdating: URL(fileURLWithPath: documents + "/large.bin"))
                    try handle.seek(toOffset: UInt64(configuration.bigMiB << 19))
                    try handle.write(
                        contentsOf: Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ run &* 13) }))
                    try handle.close()
                }
                writeSmall(documents + "/small/0/f0.bin", smallFileContents(files + 1 + run))
            }, ours: { oursRun("backup", "incremental") },
            theirs: { theirsRun("incremental", ["backup", documents]) })

        if configuration.restore {
            let target = base + "/restic-target"
            var restore = Comparison(name: "restore", peer: "restic restore", bytes: bytes)
            try measure(
                &restore, prepare: { _ in _ = try timeTool("/bin/rm", ["-rf", target]) },
                ours: { oursRun("restore", "restore") },
                theirs: { theirsRun("restore", ["restore", "latest", "--target", target]) })
        }
        result.load.after = loadAverages()
        return result
    }
}

/// How many files the repository at `path` holds, and their bytes.
func repositoryObjects(_ path: String) -> (count: Int, bytes: Int64) {
    var count = 0
    var bytes: Int64 = 0
    let enumerator = FileManager.default.enumerator(atPath: path)
    while enumerator?.nextObject() != nil {
        guard let attributes = enumerator?.fileAttributes, attributes[.type] as? FileAttributeType == .typeRegular
        else { continue }
        count += 1
        bytes += (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }
    return (count, bytes)
}
