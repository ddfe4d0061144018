// Measures SandboxCore's I/O engine against the system tools and Foundation doing the same job in
// the same run (issue 3): sequential read and write of a large file against `dd bs=1M` (and
// `conv=fsync` for durable writes), whole-file read against `Data(contentsOf:)`, atomic durable
// 4 KiB files against `Data.write(.atomic)` + fsync, random 4 KiB reads on a channel at 1, 4, 16
// and 64 in flight against threads doing `pread` (and `fio --ioengine=psync --numjobs=N` when fio
// is installed), and the peak memory of streaming a large file. Ratios are throughput, ours over
// theirs (≥ 1.0: at least as fast). Not run by CI.
//
//     swift run -c release sandbox-io-benchmark [--size-mib 1024] [--stream-mib 4096] [--small-files 10000]
//         [--random-reads 256000] [--runs 5] [--dir /var/tmp] [--only read,write,small,random,peak]
import ArgumentParser
import Foundation
import SandboxCore

// The peak-memory case runs this program again as a child: `--child-stream DIRECTORY NAME`.
let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--child-stream", arguments.count == 3 {
    try await childStream(directory: arguments[1], name: arguments[2])
    exit(0)
}

let configuration = Configuration.parseOrExit()
let directory = configuration.directory + "/sandbox-io-benchmark-\(getpid())"
try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(atPath: directory) }  // teardown: nothing to report
let root = try ConfinedRoot(openingDirectoryAt: directory)
print(
    "sandbox-io-benchmark: \(configuration.sizeMiB) MiB files in \(directory), \(configuration.runs) runs, \(IOEngine.shared.threadCount) engine threads"
)

let sequential = SequentialCases(configuration: configuration, root: root, directory: directory)
let others = SmallAndRandomCases(configuration: configuration, root: root, directory: directory)
if configuration.wants("read") { try await sequential.reads() }
if configuration.wants("write") { try await sequential.writes() }
if configuration.wants("small") { try others.smallFiles() }
if configuration.wants("random") { try await others.randomReads() }
if configuration.wants("peak") { try others.streamingPeak(executable: CommandLine.arguments[0]) }
