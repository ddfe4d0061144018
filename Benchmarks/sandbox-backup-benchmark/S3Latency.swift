// The S3 mode (issue 30): the benchmark's container is backed up straight to the Ceph gateway the
// environment names (S3_ENDPOINT, S3_ACCESS_KEY, S3_SECRET_KEY: `scripts/ceph-lab.sh start`), and
// copied there with `rclone copy`; then, through scripts/delay-proxy.py (each chunk held --delay-ms
// each way: the kernel has no sch_netem), our restore and `check --read-data` run at each
// --parallel N against `rclone copy --transfers 8` of the same files from the same gateway through
// the same proxy, alternating, as processes.
import BenchmarkSupport
import Foundation
import Sandbox

struct S3LatencyBenchmark {
    let configuration: Configuration

    func run() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let endpoint = environment["S3_ENDPOINT"], endpoint.hasPrefix("http://"),
            let accessKey = environment["S3_ACCESS_KEY"], let secretKey = environment["S3_SECRET_KEY"]
        else { fatalError("--s3-latency needs S3_ENDPOINT (http://…), S3_ACCESS_KEY and S3_SECRET_KEY") }
        let rclone = "/usr/bin/rclone"
        guard FileManager.default.isExecutableFile(atPath: rclone) else { fatalError("install rclone") }
        var template = Array("\(configuration.directory)/sandbox-s3-bench-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else {
            fatalError("cannot create a directory in \(configuration.directory)")
        }
        let base = String(cString: made)
        defer { _ = try? timeTool("/bin/rm", ["-rf", base]) }  // teardown only
        let me = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let home = try SandboxHome(location: base + "/home")
        let documents = try makeContainer(home: home, bigMiB: configuration.bigMiB, files: configuration.files)
        let passwordFile = base + "/password"
        try Data("benchmark password".utf8).write(to: URL(fileURLWithPath: passwordFile))
        let tag = String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let repository = "s3://bench-ours-\(tag)/repo"
        let bucket = "bench-rclone-\(tag)"
        let bytes = containerBytes(bigMiB: configuration.bigMiB, files: configuration.files)

        // Stored straight, without the proxy: only the reads are measured.
        _ = spawn([me, "worker", "backup", home.location, repository, passwordFile])
        let direct = rcloneRemote("direct", endpoint: endpoint, accessKey: accessKey, secretKey: secretKey)
        _ = spawn([rclone, "mkdir", "direct:\(bucket)"], environment: direct)
        _ = spawn([rclone, "copy", documents, "direct:\(bucket)/docs", "--transfers", "8"], environment: direct)

        let proxy = DelayProxyProcess(
            upstream: String(endpoint.dropFirst("http://".count).prefix { $0 != "/" }),
            delay: Double(configuration.delayMs) / 1000, scratch: base)
        defer { proxy.stop() }
        let slow = rcloneRemote("slow", endpoint: proxy.endpoint, accessKey: accessKey, secretKey: secretKey)
        print(
            "# sandbox-backup-benchmark --s3-latency: 1 × \(configuration.bigMiB) MiB + \(configuration.files) small files, \(configuration.runs) runs, \(2 * configuration.delayMs) ms round trip added, \(endpoint) through \(proxy.endpoint)"
        )
        let target = base + "/rclone-target"
        var rcloneTimes: [Double] = []
        var restores: [Int: [Double]] = [:]
        var checks: [Int: [Double]] = [:]
        for _ in 0..<configuration.runs {
            _ = try timeTool("/bin/rm", ["-rf", target])
            rcloneTimes.append(
                spawn([rclone, "copy", "slow:\(bucket)/docs", target, "--transfers", "8"], environment: slow).seconds)
            for parallel in configuration.parallel {
                let through = ["S3_ENDPOINT": proxy.endpoint]
                restores[parallel, default: []].append(
                    spawn(
                        [me, "worker", "restore", home.location, repository, passwordFile, String(parallel)],
                        environment: through
                    ).seconds)
                checks[parallel, default: []].append(
                    spawn([me, "worker", "check", repository, passwordFile, String(parallel)], environment: through)
                        .seconds)
            }
        }
        let peer = median(rcloneTimes)
        func row(_ name: String, _ times: [Double]) -> String {
            let seconds = median(times)
            let each = times.map { String(format: "%.1f", $0) }.joined(separator: ", ")
            let throughput = String(format: "%.2f s (%.1f MiB/s)", seconds, Double(bytes) / Double(1 << 20) / seconds)
            return "| \(name) | \(throughput) | **\(String(format: "%.2f", peer / seconds))** | \(each) |"
        }
        print("| operation | median (throughput) | throughput ours / rclone | each run, s |\n|---|---|---|---|")
        print(row("rclone copy --transfers 8", rcloneTimes))
        for parallel in configuration.parallel {
            print(row("restore, --parallel \(parallel)", restores[parallel] ?? []))
        }
        for parallel in configuration.parallel {
            print(row("check --read-data, --parallel \(parallel)", checks[parallel] ?? []))
        }
    }

    /// An rclone S3 remote `name` for the gateway at `endpoint`, as environment variables.
    func rcloneRemote(_ name: String, endpoint: String, accessKey: String, secretKey: String) -> [String: String] {
        let prefix = "RCLONE_CONFIG_\(name.uppercased())_"
        return [
            prefix + "TYPE": "s3", prefix + "PROVIDER": "Ceph", prefix + "ENDPOINT": endpoint,
            prefix + "ACCESS_KEY_ID": accessKey, prefix + "SECRET_ACCESS_KEY": secretKey,
        ]
    }
}

/// scripts/delay-proxy.py running in front of `upstream` (HOST:PORT), until ``stop()``.
struct DelayProxyProcess {
    let pid: pid_t
    let endpoint: String

    init(upstream: String, delay: Double, scratch: String) {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/delay-proxy.py").path
        let output = scratch + "/delay-proxy.out"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let arguments = ["/usr/bin/python3", script, upstream, "--delay", String(delay)]
        let argv = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, arguments[0], &actions, nil, argv, environ) == 0 else {
            fatalError("cannot run \(script)")
        }
        self.pid = pid
        // It prints its port once it listens: wait for that line, at most 30 s.
        let deadline = ContinuousClock.now + .seconds(30)
        var port: Substring?
        while port == nil {
            let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            port = text.split(separator: "\n").first { $0.hasPrefix("PROXY_PORT=") }?.dropFirst("PROXY_PORT=".count)
            guard port == nil else { break }
            guard ContinuousClock.now < deadline else { fatalError("delay-proxy.py printed no port in 30 s") }
            usleep(20_000)
        }
        endpoint = "http://127.0.0.1:\(port ?? "")"
    }

    func stop() {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
