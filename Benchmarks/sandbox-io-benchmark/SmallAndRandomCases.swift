import Foundation
import SandboxCore

/// Many small atomic durable writes, random reads at several queue depths, and peak memory while
/// streaming.
struct SmallAndRandomCases {
    let configuration: Configuration
    let root: ConfinedRoot
    let directory: String

    func smallFiles() throws {
        let count = configuration.smallFiles
        let bytes = [UInt8](repeating: 0x5A, count: 4096)
        let data = Data(bytes)
        try root.createDirectory(at: ContainerPath("small-ours"))
        try FileManager.default.createDirectory(
            atPath: directory + "/small-foundation", withIntermediateDirectories: true)
        var ours: [Double] = []
        var foundation: [Double] = []
        for run in 0..<max(1, configuration.runs / 2) {
            ours.append(
                try measure {
                    for index in 0..<count {
                        try root.writeContents(
                            bytes, to: ContainerPath("small-ours/\(run)-\(index)"), options: [.atomic, .durable])
                    }
                })
            foundation.append(
                try measure {
                    for index in 0..<count {
                        let url = URL(fileURLWithPath: directory + "/small-foundation/\(run)-\(index)")
                        try data.write(to: url, options: .atomic)
                        let fd = open(url.path, O_RDONLY)
                        fsync(fd)
                        close(fd)
                    }
                })
        }
        print("\n## \(count) atomic durable 4 KiB files (median of \(ours.count))")
        report(
            "writeContents [.atomic, .durable]", ours: ours, baseline: foundation,
            baselineName: "Data.write(.atomic)+fsync"
        ) { seconds in
            String(format: "%.0f files/s", Double(count) / seconds)
        }
        _ = try root.removeItem(at: ContainerPath("small-ours"), recursively: true)
        try FileManager.default.removeItem(atPath: directory + "/small-foundation")
    }

    func randomReads() async throws {
        let name = "random.bin"
        let host = directory + "/" + name
        makeFile(host, megabytes: configuration.sizeMiB)
        _ = timeTool("dd", ["if=\(host)", "of=/dev/null", "bs=1M"])
        let blocks = (configuration.sizeMiB << 20) / 4096
        var generator = SystemRandomNumberGenerator()
        let offsets = (0..<configuration.randomReads).map { _ in
            Int64(Int.random(in: 0..<blocks, using: &generator)) * 4096
        }
        let fio = hasFio()
        print("\n## Random 4 KiB reads, \(configuration.randomReads) per run (median of \(configuration.runs))")
        for depth in [1, 4, 16, 64] {
            var ours: [Double] = []
            var threads: [Double] = []
            var fioRates: [Double] = []
            // CPU microseconds per read: what a read costs whoever gets the CPU on a loaded machine.
            var oursCPU: [Double] = []
            var threadsCPU: [Double] = []
            var fioCPU: [Double] = []
            let perRead = { (cpu: Double) in cpu / Double(offsets.count) * 1e6 }
            for _ in 0..<configuration.runs {
                var cpu = cpuSeconds()
                ours.append(try await channelReads(name: name, offsets: offsets, depth: depth))
                oursCPU.append(perRead(cpuSeconds() - cpu))
                cpu = cpuSeconds()
                threads.append(try threadReads(host: host, offsets: offsets, depth: depth))
                threadsCPU.append(perRead(cpuSeconds() - cpu))
                if fio, let (rate, cpu) = fioRandomReads(host: host, depth: depth) {
                    fioRates.append(rate)
                    fioCPU.append(cpu)
                }
            }
            let iops = { (seconds: Double) in String(format: "%.0f IOPS", Double(offsets.count) / seconds) }
            report(
                "IOChannel, \(depth) in flight", ours: ours, baseline: threads,
                baselineName: "\(depth) threads × pread", unit: iops)
            if !fioRates.isEmpty {
                // fio reports IOPS: turn them into seconds for the same read count.
                let fioSeconds = fioRates.map { Double(offsets.count) / $0 }
                report(
                    "IOChannel, \(depth) in flight", ours: ours, baseline: fioSeconds,
                    baselineName: "fio psync numjobs=\(depth)", unit: iops)
            }
            print(
                String(
                    format: "  CPU per read: ours %.2f µs, threads × pread %.2f µs (× %.2f)%@",
                    median(oursCPU), median(threadsCPU), median(threadsCPU) / median(oursCPU),
                    fioCPU.isEmpty
                        ? ""
                        : String(format: ", fio %.2f µs (× %.2f)", median(fioCPU), median(fioCPU) / median(oursCPU))))
        }
        unlink(host)
    }

    /// `depth` tasks, each reading its share of the offsets one after the other into a buffer of
    /// its own (`read(into:atOffset:)`, as an app would): `depth` reads in flight on one channel,
    /// as fio's psync engine has with `depth` jobs.
    private func channelReads(name: String, offsets: [Int64], depth: Int) async throws -> Double {
        let channel = try root.openChannel(at: ContainerPath(name), chunkSize: 4096)
        defer { channel.close() }
        let share = offsets.count / depth
        return try await measure {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<depth {
                    group.addTask {
                        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 4096)
                        defer { buffer.deallocate() }
                        for index in (worker * share)..<((worker + 1) * share) {
                            let read = try await channel.read(into: buffer, atOffset: offsets[index])
                            precondition(read == 4096)
                        }
                    }
                }
                try await group.waitForAll()
            }
        }
    }

    /// The baseline fio's psync engine measures: `depth` threads, each a pread loop.
    private func threadReads(host: String, offsets: [Int64], depth: Int) throws -> Double {
        let fd = open(host, O_RDONLY)
        defer { close(fd) }
        let share = offsets.count / depth
        return measure {
            DispatchQueue.concurrentPerform(iterations: depth) { worker in
                var buffer = [UInt8](repeating: 0, count: 4096)
                for index in (worker * share)..<((worker + 1) * share) {
                    let read = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 4096, off_t(offsets[index])) }
                    precondition(read == 4096)
                }
            }
        }
    }

    private func hasFio() -> Bool {
        spawnAndWait("fio", ["--version"], output: "/dev/null") == 0
    }

    /// fio's total read IOPS with the psync engine and `depth` jobs (threads), over two seconds, and
    /// the CPU microseconds its process spent per read (start-up included), or nil when it fails.
    private func fioRandomReads(host: String, depth: Int) -> (iops: Double, cpuPerRead: Double)? {
        let output = directory + "/fio.json"
        let cpu = cpuSeconds(children: true)
        let status = spawnAndWait(
            "fio",
            [
                "--name=randread", "--filename=\(host)", "--rw=randread", "--bs=4k", "--ioengine=psync",
                "--numjobs=\(depth)", "--thread", "--time_based", "--runtime=2", "--group_reporting",
                "--output-format=json", "--invalidate=0", "--size=\(configuration.sizeMiB)m",
            ], output: output)
        defer { unlink(output) }
        // Any failure to run or parse fio drops its column; the thread baseline is always there.
        guard status == 0, let data = FileManager.default.contents(atPath: output),
            let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
            let jobs = json["jobs"] as? [[String: Any]], let read = jobs.first?["read"] as? [String: Any],
            let iops = read["iops"] as? Double, let reads = read["total_ios"] as? Double, reads > 0
        else { return nil }
        return (iops, (cpuSeconds(children: true) - cpu) / reads * 1e6)
    }

    /// Streams a large file in a fresh process and returns that process's peak resident memory.
    func streamingPeak(executable: String) throws {
        let name = "stream-peak.bin"
        let host = directory + "/" + name
        makeFile(host, megabytes: configuration.streamMiB)
        let output = directory + "/peak.txt"
        let status = spawnAndWait(executable, ["--child-stream", directory, name], output: output)
        let printed = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""  // reported as empty
        unlink(output)
        unlink(host)
        print("\n## Peak memory while streaming \(configuration.streamMiB) MiB with readChunks (fresh process)")
        print(
            status == 0
                ? printed.trimmingCharacters(in: .whitespacesAndNewlines) : "the child failed with status \(status)")
    }
}

/// The child side of ``SmallAndRandomCases/streamingPeak(executable:)``.
func childStream(directory: String, name: String) async throws {
    let root = try ConfinedRoot(openingDirectoryAt: directory)
    let before = peakResidentBytes()
    var total = 0
    var sum: UInt64 = 0
    let seconds = try await measure {
        for try await chunk in try root.readChunks(of: ContainerPath(name)) {
            total += chunk.count
            chunk.forEachRegion { bytes, _ in
                sum &+= UInt64(bytes.first ?? 0)
                return true
            }
        }
    }
    let peak = peakResidentBytes()
    print(
        String(
            format:
                "streamed %d MiB in %.2f s (%.2f GiB/s); peak resident memory %.1f MiB (%.1f MiB before streaming) [checksum %llu]",
            total >> 20, seconds, Double(total) / seconds / Double(1 << 30), Double(peak) / 1_048_576,
            Double(before) / 1_048_576, sum))
}
