// Measures `sandbox share` against the goals of issue 11, with nginx serving the same Documents
// folder in the same run (`dav_methods PUT DELETE MKCOL COPY MOVE`, no body limit, one worker per
// core), and prints a markdown table (medians over the runs, ratios ours/nginx). Not run by CI.
//
//     apt-get install -y nginx wrk curl openssl
//     swift build -c release --product sandbox
//     swift run --package-path Benchmarks -c release sandbox-share-benchmark --runs 3 [--sandbox .build/release/sandbox]
//         [--mib 1024] [--small 10000] [--seconds 10] [--baseline OTHER-SANDBOX]
//
// 1. GET of one large file (1 GiB), curl -o /dev/null: throughput (goal ≥ 0.8× nginx).
// 2. GET of 10,000 files of 16 KiB with wrk (keep-alive, 8 connections, a Lua script cycling
//    through the paths, our requests with the Authorization header): requests/s (≥ 0.5×), and
//    each server's CPU time per request (less disturbed by other load on the machine). With
//    --baseline, another build serves the same folder and is measured in the same rounds.
// 3. PUT of the large file, curl -T: throughput (≥ 0.8×).
// 4. PROPFIND Depth 1 of the 10,000-file folder: time (< 1 s), and nginx's with Debian's dav-ext
//    module when it is installed (apt-get install libnginx-mod-http-dav-ext).
// 5. The server's peak resident memory (VmHWM) over all of it (< 64 MiB).
// With --propfind-only, only the PROPFIND curve of issue 31 (PropfindCurve.swift): Depth 1 of a
// folder of each of --propfind-sizes one-byte files (allprop, and the name list Finder and rclone
// send), Depth infinity of a tree of as many (folders of 1,000), ours and nginx's alternately, and
// the share's VmHWM after each size.
// 6. Over TLS (issue 32; --no-tls leaves it out): the share with --tls-cert/--tls-key and nginx with
//    the same P-256 certificate (made with openssl), GET of the large file (curl) and the small GETs
//    (wrk over https) as above (goal ≥ 0.8× both), and that share's VmHWM under a 1 GiB upload.
import ArgumentParser
import BenchmarkSupport
import Foundation
import Sandbox
import SandboxTransferTesting

struct Options: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sandbox-share-benchmark",
        abstract: "sandbox share against nginx's WebDAV serving the same folder, with curl and wrk."
    )

    @Option(help: "How many times each workload runs.") var runs = 3
    @Option(name: .customLong("mib"), help: "The size of the large file, in MiB.") var mebibytes = 1024
    @Option(help: "How many 16 KiB files the small-GET workload cycles through.") var small = 10_000
    @Option(help: "How long each wrk run lasts, in seconds.") var seconds = 10
    @Option(help: "The sandbox executable (default: beside this one, else .build/release/sandbox).")
    var sandbox: String?
    @Option(help: "Another sandbox executable, measured against this one in the small-GET rounds.")
    var baseline: String?
    @Option(name: .customLong("tls-upload-mib"), help: "The size of the upload over TLS, in MiB (peak RSS).")
    var tlsUploadMebibytes = 1024
    @Flag(help: "Leave out the rows over TLS.") var noTLS = false
    @Flag(help: "Only the PROPFIND curve (issue 31): Depth 1 and infinity at each of --propfind-sizes.")
    var propfindOnly = false
    @Option(help: "The folder sizes of the PROPFIND curve, comma-separated (Depth 1; infinity from 10,000).")
    var propfindSizes = "1000,10000,50000"
}

let options = Options.parseOrExit()
let runs = options.runs
let mebibytes = options.mebibytes
let small = options.small
let seconds = options.seconds
var sandbox = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(
    "sandbox"
)
.path
if !FileManager.default.isExecutableFile(atPath: sandbox) { sandbox = ".build/release/sandbox" }
if let chosen = options.sandbox { sandbox = chosen }
guard FileManager.default.isExecutableFile(atPath: sandbox) else {
    fatalError("no sandbox at \(sandbox): swift build -c release --product sandbox, or pass --sandbox PATH")
}

let size = mebibytes << 20
let scratchDirectory = try ScratchDirectory.make(prefix: "sandbox-share-bench")
let scratch = scratchDirectory.path
defer { scratchDirectory.remove() }
let app = "com.example.share-benchmark"
let home = try SandboxHome(location: scratch + "/home")
let documents = try home.createContainer(for: AppIdentifier(app), fileSharing: true).hostPath(for: .documents)
if options.propfindOnly {
    try await propfindCurve(
        sizes: options.propfindSizes.split(separator: ",").compactMap { Int($0) }, documents: documents,
        sandbox: sandbox, home: scratch + "/home", app: app, scratch: scratch, runs: runs)
    scratchDirectory.remove()
    exit(0)
}
try writeNoise(documents + "/large.bin", size: size)
try FileManager.default.createDirectory(atPath: documents + "/small", withIntermediateDirectories: true)
for index in 0..<small { try writeNoise(documents + "/small/s\(index).bin", size: 16 << 10) }

let nginx = try await NginxServer.start(davRoot: documents, workers: "auto")
let server = try await ShareServer.start(sandbox: sandbox, home: scratch + "/home", app: app, scratch: scratch)
let curl = try tool("curl")
print("# sandbox-share-benchmark: \(mebibytes) MiB file, \(small) small files, \(runs) runs, \(sandbox)\n")

/// Times ours and nginx's alternately, each first every other run (the page cache favours the second).
@MainActor func alternate<Measure>(
    _ ours: () async throws -> Measure, _ theirs: () async throws -> Measure
) async rethrows -> ([Measure], [Measure]) {
    var (a, b): ([Measure], [Measure]) = ([], [])
    for run in 0..<runs {
        if run % 2 == 1 { b.append(try await theirs()) }
        a.append(try await ours())
        if run % 2 == 0 { b.append(try await theirs()) }
    }
    return (a, b)
}
func mibps(_ seconds: Double) -> Double { Double(size) / 1_048_576 / seconds }
var rows: [String] = []
var verdicts: [String] = []
@MainActor func verdict(_ name: String, _ value: String, _ goal: String, _ met: Bool) {
    verdicts.append("| \(name) | \(value) | \(goal) | \(met ? "pass" : "**fail**") |")
}

// 1. GET of the large file.
let (getOurs, getNginx) = try await alternate(
    { try timeTool(curl, ["-sf", "-u", server.credentials, "-o", "/dev/null", server.url("/large.bin")]) },
    { try timeTool(curl, ["-sf", "-o", "/dev/null", nginx.url("/dav/large.bin")]) })
let getRatio = median(getNginx) / median(getOurs)
rows.append(
    String(
        format: "| GET %d MiB (curl) | %.0f MiB/s | %.0f MiB/s | **%.2f×** |", mebibytes, mibps(median(getOurs)),
        mibps(median(getNginx)), getRatio))
verdict("GET large, throughput vs nginx", String(format: "%.2f×", getRatio), "≥ 0.8×", getRatio >= 0.8)
let afterGet = server.memory()

// 2. GET of the small files, with each server's CPU time per request (nginx: master and workers).
let nginxPids = nginxProcesses(documentRoot: nginx.documentRoot)
func smallOn(_ share: ShareServer) async throws -> SmallGetSample {
    try await wrkSample(
        base: share.url("/"), prefix: "/small/s", count: small, authorization: share.authorization,
        seconds: seconds, scratch: scratch, pids: [share.process.pid])
}
func smallOnNginx() async throws -> SmallGetSample {
    try await wrkSample(
        base: nginx.url("/"), prefix: "/dav/small/s", count: small, authorization: nil, seconds: seconds,
        scratch: scratch, pids: nginxPids)
}
let (smallOursSamples, smallNginxSamples) = try await alternate({ try await smallOn(server) }, smallOnNginx)
let (smallOurs, smallNginx) = (smallOursSamples.map(\.rate), smallNginxSamples.map(\.rate))
let smallRatio = median(smallOurs) / median(smallNginx)
rows.append(
    String(
        format: "| GET %d × 16 KiB (wrk, 8 connections) | %.0f req/s | %.0f req/s | **%.2f×** |", small,
        median(smallOurs), median(smallNginx), smallRatio))
rows.append(
    String(
        format: "| … server CPU time per request | %.1f µs | %.1f µs | **%.2f×** |",
        median(smallOursSamples.map(\.cpuPerRequest)), median(smallNginxSamples.map(\.cpuPerRequest)),
        median(smallNginxSamples.map(\.cpuPerRequest)) / median(smallOursSamples.map(\.cpuPerRequest))))
verdict("GET small, requests/s vs nginx", String(format: "%.2f×", smallRatio), "≥ 0.5×", smallRatio >= 0.5)

// 2b. With --baseline: another build of sandbox serving the same folder, measured in the same
// rounds (ours, the baseline, nginx; each first in turn), for a before/after on a busy machine.
if let baselinePath = options.baseline {
    let baseline = try await ShareServer.start(
        sandbox: baselinePath, home: scratch + "/home", app: app, scratch: scratch)
    var samples: [[SmallGetSample]] = [[], [], []]
    let measures: [() async throws -> SmallGetSample] = [
        { try await smallOn(server) }, { try await smallOn(baseline) }, smallOnNginx,
    ]
    for run in 0..<runs {
        for step in 0..<3 {
            let which = (run + step) % 3
            samples[which].append(try await measures[which]())
        }
    }
    await baseline.stop()
    print("Small GETs, \(sandbox) against the baseline \(baselinePath), in the same rounds:\n")
    print(
        "| server | req/s (runs) | ratio to nginx (median of each round's) | CPU µs/request | nginx's CPU/request ÷ this |"
    )
    print("|---|---|---|---|---|")
    for (name, index) in [("this build", 0), ("baseline", 1), ("nginx", 2)] {
        let ratios = zip(samples[index], samples[2]).map { $0.rate / $1.rate }
        let cpu = median(samples[index].map(\.cpuPerRequest))
        print(
            "| \(name) | \(samples[index].map { String(format: "%.0f", $0.rate) }.joined(separator: ", ")) | "
                + String(format: "%.2f× (%.2f–%.2f)", median(ratios), ratios.min() ?? 0, ratios.max() ?? 0)
                + String(format: " | %.1f | %.2f× |", cpu, median(samples[2].map(\.cpuPerRequest)) / cpu))
    }
    print("")
}

// 3. PUT of the large file (from Documents/large.bin, in the page cache for both).
var putRun = 0
let (putOurs, putNginx) = try await alternate(
    {
        putRun += 1
        let name = "/put-ours-\(putRun).bin"
        defer { try? FileManager.default.removeItem(atPath: documents + name) }  // next run starts clean
        return try timeTool(
            curl,
            ["-sf", "-u", server.credentials, "-T", documents + "/large.bin", "-o", "/dev/null", server.url(name)])
    },
    {
        putRun += 1
        let name = "/put-nginx-\(putRun).bin"
        defer { try? FileManager.default.removeItem(atPath: documents + name) }  // next run starts clean
        return try timeTool(curl, ["-sf", "-T", documents + "/large.bin", "-o", "/dev/null", nginx.url("/dav" + name)])
    })
let putRatio = median(putNginx) / median(putOurs)
rows.append(
    String(
        format: "| PUT %d MiB (curl -T) | %.0f MiB/s | %.0f MiB/s | **%.2f×** |", mebibytes, mibps(median(putOurs)),
        mibps(median(putNginx)), putRatio))
verdict("PUT large, throughput vs nginx", String(format: "%.2f×", putRatio), "≥ 0.8×", putRatio >= 0.8)

// 4. PROPFIND Depth 1 of the small-file folder, against nginx's when its dav-ext module is installed.
let propfindArguments = ["-sf", "-X", "PROPFIND", "-H", "Depth: 1", "-o", "/dev/null"]
let (propfind, propfindNginx) = try await alternate(
    { try timeTool(curl, propfindArguments + ["-u", server.credentials, server.url("/small/")]) },
    { NginxServer.answersPropfind ? try timeTool(curl, propfindArguments + [nginx.url("/dav/small/")]) : 0 })
if NginxServer.answersPropfind {
    rows.append(
        String(
            format: "| PROPFIND Depth 1, %d items | %.3f s | %.3f s | **%.2f×** (time) |", small, median(propfind),
            median(propfindNginx), median(propfind) / median(propfindNginx)))
} else {
    rows.append(String(format: "| PROPFIND Depth 1, %d items | %.3f s | (no dav-ext) | |", small, median(propfind)))
}
verdict("PROPFIND Depth 1 of \(small) items", String(format: "%.3f s", median(propfind)), "< 1 s", median(propfind) < 1)

// 5. Memory.
let peak = server.memory()
verdict("server peak RSS (VmHWM)", mib(peak), "< 64 MiB", peak < 64 << 20)

// 6. Over TLS (issue 32): a second share with `--tls-cert/--tls-key` and nginx with `ssl_certificate`
// on the same P-256 certificate and key, serving the same folder; then that share's peak RSS under
// an upload of --tls-upload-mib over TLS.
var tlsRuns = ""
if !options.noTLS {
    let identity = try await makeCertificate(in: scratch)
    let tlsNginx = try await TLSNginx.start(
        root: documents, certificate: identity.certificate, key: identity.key, scratch: scratch)
    let tlsServer = try await ShareServer.start(
        sandbox: sandbox, home: scratch + "/home", app: app, scratch: scratch,
        arguments: ["--tls-cert", identity.certificate, "--tls-key", identity.key])
    let https = ["-sf", "--cacert", identity.certificate, "-o", "/dev/null"]
    let (tlsGetOurs, tlsGetNginx) = try await alternate(
        { try timeTool(curl, https + ["-u", tlsServer.credentials, tlsServer.url("/large.bin")]) },
        { try timeTool(curl, https + [tlsNginx.url("/dav/large.bin")]) })
    let tlsGetRatio = median(tlsGetNginx) / median(tlsGetOurs)
    rows.append(
        String(
            format: "| GET %d MiB over TLS (curl) | %.0f MiB/s | %.0f MiB/s | **%.2f×** |", mebibytes,
            mibps(median(tlsGetOurs)), mibps(median(tlsGetNginx)), tlsGetRatio))
    verdict("TLS GET large vs nginx TLS", String(format: "%.2f×", tlsGetRatio), "≥ 0.8×", tlsGetRatio >= 0.8)

    let (tlsSmallOurs, tlsSmallNginx) = try await alternate(
        {
            try await wrkSample(
                base: tlsServer.url("/"), prefix: "/small/s", count: small, authorization: tlsServer.authorization,
                seconds: seconds, scratch: scratch, pids: [tlsServer.process.pid])
        },
        {
            try await wrkSample(
                base: tlsNginx.url("/"), prefix: "/dav/small/s", count: small, authorization: nil, seconds: seconds,
                scratch: scratch, pids: tlsNginx.processes)
        })
    let tlsSmallRatio = median(tlsSmallOurs.map(\.rate)) / median(tlsSmallNginx.map(\.rate))
    rows.append(
        String(
            format: "| GET %d × 16 KiB over TLS (wrk, 8 connections) | %.0f req/s | %.0f req/s | **%.2f×** |", small,
            median(tlsSmallOurs.map(\.rate)), median(tlsSmallNginx.map(\.rate)), tlsSmallRatio))
    rows.append(
        String(
            format: "| … server CPU time per request over TLS | %.1f µs | %.1f µs | **%.2f×** |",
            median(tlsSmallOurs.map(\.cpuPerRequest)), median(tlsSmallNginx.map(\.cpuPerRequest)),
            median(tlsSmallNginx.map(\.cpuPerRequest)) / median(tlsSmallOurs.map(\.cpuPerRequest))))
    verdict("TLS GET small vs nginx TLS", String(format: "%.2f×", tlsSmallRatio), "≥ 0.8×", tlsSmallRatio >= 0.8)

    let upload = scratch + "/tls-upload.bin"
    try writeNoise(upload, size: options.tlsUploadMebibytes << 20)
    let uploadTime = try timeTool(
        curl,
        [
            "-sf", "--cacert", identity.certificate, "-u", tlsServer.credentials, "-T", upload, "-o", "/dev/null",
            tlsServer.url("/tls-upload.bin"),
        ])
    try? FileManager.default.removeItem(atPath: upload)  // scratch, removed with the folder anyway
    let tlsPeak = tlsServer.memory()
    rows.append(
        String(
            format: "| PUT %d MiB over TLS (curl -T), once | %.0f MiB/s | — | ", options.tlsUploadMebibytes,
            Double(options.tlsUploadMebibytes) / uploadTime) + "peak RSS \(mib(tlsPeak)) |")
    verdict(
        "TLS share peak RSS (VmHWM), \(options.tlsUploadMebibytes) MiB upload", mib(tlsPeak), "< 64 MiB",
        tlsPeak < 64 << 20)
    tlsRuns =
        "TLS: GET \(tlsGetOurs.map { String(format: "%.2f", $0) }) vs \(tlsGetNginx.map { String(format: "%.2f", $0) }) s; "
        + "small \(tlsSmallOurs.map { String(format: "%.0f", $0.rate) }) vs "
        + "\(tlsSmallNginx.map { String(format: "%.0f", $0.rate) }) req/s\n"
    await tlsServer.stop()
    await tlsNginx.stop()
}

print("| workload | sandbox share | nginx | ratio (ours/nginx throughput) |")
print("|---|---|---|---|")
for row in rows { print(row) }
print(
    "\nRuns: GET \(getOurs.map { String(format: "%.2f", $0) }) vs \(getNginx.map { String(format: "%.2f", $0) }) s; "
        + "small \(smallOurs.map { String(format: "%.0f", $0) }) vs \(smallNginx.map { String(format: "%.0f", $0) }) req/s; "
        + "PUT \(putOurs.map { String(format: "%.2f", $0) }) vs \(putNginx.map { String(format: "%.2f", $0) }) s; "
        + "PROPFIND \(propfind.map { String(format: "%.3f", $0) }) s; VmHWM after the large GET \(mib(afterGet))\n"
        + tlsRuns)
print("| goal (issue 11) | measured | target | |")
print("|---|---|---|---|")
for line in verdicts { print(line) }

await server.stop()
await nginx.stopAndRemoveFiles()
