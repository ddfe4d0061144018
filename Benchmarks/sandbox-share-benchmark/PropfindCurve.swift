import BenchmarkSupport
import Foundation
import SandboxTransferTesting

/// The PROPFIND curve of issue 31: for each size, `PROPFIND Depth: 1` of a folder of that many
/// one-byte files and (from 10,000) `Depth: infinity` of a tree of as many (folders of 1,000
/// files), timed with curl against the share and nginx's dav-ext alternately (medians of `runs`),
/// with each server's CPU time per entry (user + system, from procfs: another load on the machine
/// disturbs it less than the times), the share's VmHWM after each size (sizes ascending, so each
/// is the peak so far) and the load average. Prints a markdown table.
/// The properties Finder and rclone ask a listing for.
let propfindNameList =
    #"<?xml version="1.0"?><D:propfind xmlns:D="DAV:"><D:prop><D:resourcetype/><D:getcontentlength/>"#
    + "<D:getlastmodified/><D:getetag/><D:getcontenttype/></D:prop></D:propfind>"

@MainActor func propfindCurve(
    sizes: [Int], documents: String, sandbox: String, home: String, app: String, scratch: String, runs: Int
) async throws {
    let byte: [UInt8] = [0x61]
    for size in sizes.sorted() {
        let flat = documents + "/flat-\(size)"
        try FileManager.default.createDirectory(atPath: flat, withIntermediateDirectories: true)
        for index in 0..<size {
            guard FileManager.default.createFile(atPath: flat + "/f\(index).txt", contents: Data(byte)) else {
                throw BenchmarkFailure("could not create \(flat)/f\(index).txt")
            }
        }
        if size >= 10_000 {
            let tree = documents + "/tree-\(size)"
            for index in 0..<size {
                let folder = tree + "/d\(index / 1000)"
                if index % 1000 == 0 {
                    try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                }
                guard FileManager.default.createFile(atPath: folder + "/f\(index).txt", contents: Data(byte)) else {
                    throw BenchmarkFailure("could not create \(folder)/f\(index).txt")
                }
            }
        }
    }
    let nginx = try await NginxServer.start(davRoot: documents, workers: "auto")
    let server = try await ShareServer.start(sandbox: sandbox, home: home, app: app, scratch: scratch)
    let curl = try tool("curl")
    guard NginxServer.answersPropfind else { throw BenchmarkFailure("nginx has no dav-ext: no PROPFIND curve") }
    print("# PROPFIND curve (issue 31): \(sizes) items, \(runs) runs, \(sandbox)\n")
    let nginxPids = nginxProcesses(documentRoot: nginx.documentRoot)
    print("| request | items | ours | nginx | ratio (time) | CPU µs/entry, ours / nginx | share VmHWM after | load |")
    print("|---|---|---|---|---|---|---|---|")
    for size in sizes.sorted() {
        // `allprop` (no body, as the first measurements), and the name list Finder and rclone
        // send, which reads no dead properties.
        var requests: [(String, String, String, String?)] = [
            ("Depth 1", "1", "/flat-\(size)/", nil), ("Depth 1, name list", "1", "/flat-\(size)/", propfindNameList),
        ]
        if size >= 10_000 { requests.append(("Depth infinity", "infinity", "/tree-\(size)/", nil)) }
        for (name, depth, path, body) in requests {
            let arguments =
                ["-sf", "-X", "PROPFIND", "-H", "Depth: \(depth)", "-o", "/dev/null"]
                + (body.map { ["-H", "Content-Type: application/xml", "--data", $0] } ?? [])
            var (ours, theirs): ([Double], [Double]) = ([], [])
            var (ourCPU, theirCPU): ([Double], [Double]) = ([], [])
            /// The time of `request` and the CPU seconds `pids` used meanwhile.
            func measured(_ pids: [Int32], _ request: () throws -> Double) rethrows -> (Double, Double) {
                let before = cpuSeconds(pids)
                let time = try request()
                return (time, cpuSeconds(pids) - before)
            }
            // nginx's dav-ext refuses `Depth: infinity` (400): no ratio for those rows.
            func nginxRun() throws {
                guard depth != "infinity" else { return }
                let (time, cpu) = try measured(nginxPids) { try timeTool(curl, arguments + [nginx.url("/dav" + path)]) }
                theirs.append(time)
                theirCPU.append(cpu)
            }
            for run in 0..<runs {
                if run % 2 == 1 { try nginxRun() }
                let (time, cpu) = try measured([server.process.pid]) {
                    try timeTool(curl, arguments + ["-u", server.credentials, server.url(path)])
                }
                ours.append(time)
                ourCPU.append(cpu)
                if run % 2 == 0 { try nginxRun() }
            }
            // The listed folder's own response counts as an entry, and so do the tree's folders.
            let entries = Double(size + 1 + (depth == "infinity" ? size / 1000 : 0))
            let cpuText =
                String(format: "%.1f", median(ourCPU) / entries * 1e6) + " / "
                + (theirCPU.isEmpty ? "—" : String(format: "%.1f", median(theirCPU) / entries * 1e6))
            let load = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?.split(separator: " ").first
            let theirsText = theirs.isEmpty ? "(refuses Depth: infinity)" : String(format: "%.3f s", median(theirs))
            let ratio = theirs.isEmpty ? "" : String(format: "**%.2f×**", median(ours) / median(theirs))
            print(
                "| \(name) | \(size) | " + String(format: "%.3f s", median(ours))
                    + " | \(theirsText) | \(ratio) | \(cpuText) | \(mib(server.memory())) | \(load ?? "?") |")
        }
    }
    await server.stop()
    await nginx.stop()
}
