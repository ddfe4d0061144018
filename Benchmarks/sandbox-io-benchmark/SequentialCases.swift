import Foundation
import SandboxCore

/// Sequential reads and writes of a large file against `dd bs=1M`, from the page cache.
struct SequentialCases {
    let configuration: Configuration
    let root: ConfinedRoot
    let directory: String

    var bytes: Int { configuration.sizeMiB << 20 }

    func reads() async throws {
        let name = "sequential.bin"
        let path = try ContainerPath(name)
        makeFile(directory + "/" + name, megabytes: configuration.sizeMiB)
        let host = directory + "/" + name
        let dd = { timeTool("dd", ["if=\(host)", "of=/dev/null", "bs=1M"]) }
        _ = dd()  // warm the cache
        var baseline: [Double] = []
        var pread: [Double] = []
        var stream: [Double] = []
        var channel: [Double] = []
        var whole: [Double] = []
        var foundation: [Double] = []
        for _ in 0..<configuration.runs {
            baseline.append(dd())
            pread.append(
                try measure {
                    let file = try root.openFile(forReadingAt: path)
                    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
                    defer { buffer.deallocate() }
                    var offset: Int64 = 0
                    while true {
                        let read = try file.read(into: buffer, atOffset: offset)
                        if read == 0 { break }
                        offset += Int64(read)
                    }
                    precondition(offset == Int64(bytes))
                    try file.close()
                })
            stream.append(
                try await measure {
                    var total = 0
                    for try await chunk in try root.readChunks(of: path) { total += chunk.count }
                    precondition(total == bytes)
                })
            channel.append(
                try await measure {
                    let io = try root.openChannel(at: path)
                    var total = 0
                    for try await part in io.read() { total += part.data.count }
                    precondition(total == bytes)
                    io.close()
                })
            if configuration.sizeMiB <= 2048 {
                // Memory just freed is cheaper to fault in again on these VMs: alternate who goes first.
                let ours = { () async throws -> Double in
                    try await measure {
                        let data = try await root.readContents(of: path, maximumSize: .max, engine: .shared)
                        precondition(data.count == bytes)
                    }
                }
                let theirs = { () throws -> Double in
                    try measure {
                        let data = try Data(contentsOf: URL(fileURLWithPath: host))
                        precondition(data.count == bytes)
                    }
                }
                if whole.count % 2 == 0 {
                    whole.append(try await ours())
                    foundation.append(try theirs())
                } else {
                    foundation.append(try theirs())
                    whole.append(try await ours())
                }
            }
        }
        let rate = gibPerSecond(bytes: bytes)
        print(
            "\n## Sequential read of \(configuration.sizeMiB) MiB from the page cache (median of \(configuration.runs))"
        )
        report(
            "OpenFile.read(into:atOffset:) 1 MiB", ours: pread, baseline: baseline, baselineName: "dd bs=1M", unit: rate
        )
        report(
            "readChunks (stream, 1 MiB chunks)", ours: stream, baseline: baseline, baselineName: "dd bs=1M", unit: rate)
        report("IOChannel.read parts (1 MiB)", ours: channel, baseline: baseline, baselineName: "dd bs=1M", unit: rate)
        if !whole.isEmpty {
            report(
                "readContents(of:engine:) whole file", ours: whole, baseline: foundation,
                baselineName: "Data(contentsOf:)", unit: rate)
        }
        unlink(host)
    }

    func writes() async throws {
        let name = "written.bin"
        let path = try ContainerPath(name)
        let host = directory + "/" + name
        let count = configuration.sizeMiB
        var pattern = [UInt8](repeating: 0, count: 1 << 20)
        for index in pattern.indices { pattern[index] = UInt8(truncatingIfNeeded: index) }
        let chunk = DataRegions(pattern)
        var dd: [Double] = []
        var ddSync: [Double] = []
        var writer: [Double] = []
        var durable: [Double] = []
        for _ in 0..<configuration.runs {
            unlink(host)
            dd.append(timeTool("dd", ["if=/dev/zero", "of=\(host)", "bs=1M", "count=\(count)"]))
            unlink(host)
            writer.append(
                try await measure {
                    try await root.withWriter(at: path) { writer in
                        for _ in 0..<count { try await writer.write(chunk) }
                    }
                })
            unlink(host)
            ddSync.append(timeTool("dd", ["if=/dev/zero", "of=\(host)", "bs=1M", "count=\(count)", "conv=fsync"]))
            unlink(host)
            durable.append(
                try await measure {
                    try await root.withWriter(at: path, options: [.atomic, .durable]) { writer in
                        for _ in 0..<count { try await writer.write(chunk) }
                    }
                })
        }
        unlink(host)
        let rate = gibPerSecond(bytes: count << 20)
        print("\n## Sequential write of \(count) MiB (median of \(configuration.runs))")
        report("FileWriter atomic, 1 MiB appends", ours: writer, baseline: dd, baselineName: "dd bs=1M", unit: rate)
        report(
            "FileWriter atomic + durable", ours: durable, baseline: ddSync, baselineName: "dd bs=1M conv=fsync",
            unit: rate)
    }
}
