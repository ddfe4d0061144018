import Foundation
import Glibc
import SandboxTransferTesting

/// `sandbox share` started as a process, as a user would, with what it printed read back.
struct ShareServer {
    let process: RunningProgram
    let port: Int
    let code: String
    /// `http`, or `https` with `--tls-cert`/`--tls-key` among the arguments.
    var scheme = "http"

    /// Starts `sandbox share APP --port 0 [arguments]` with `SANDBOX_HOME=home` and waits for its
    /// pairing code.
    static func start(
        sandbox: String, home: String, app: String, scratch: String, arguments: [String] = []
    ) async throws -> ShareServer {
        let process = try BuiltProgram(path: sandbox).start(
            ["share", app, "--port", "0"] + arguments, environment: ["SANDBOX_HOME": home], outputIn: scratch)
        func value(_ label: String) -> String? {
            let text = (try? process.standardOutput()) ?? ""  // not written yet: keep waiting
            let line = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                .first { $0.hasPrefix(label) }
            return line.map { $0.dropFirst(label.count).trimmingCharacters(in: .whitespaces) }
        }
        _ = await eventually(timeout: .seconds(60)) { value("Pairing code:") != nil || !process.isRunning }
        guard let url = value("URL:"), let port = URLComponents(string: url)?.port, let code = value("Pairing code:")
        else {
            process.signal(SIGKILL)
            throw BenchmarkFailure("sandbox share did not start: \((try? process.standardError()) ?? "")")
        }
        return ShareServer(process: process, port: port, code: code, scheme: url.hasPrefix("https:") ? "https" : "http")
    }

    func url(_ path: String) -> String { "\(scheme)://127.0.0.1:\(port)\(path)" }
    var credentials: String { "sandbox:\(code)" }
    var authorization: String { "Basic " + Data(credentials.utf8).base64EncodedString() }

    /// `VmHWM` (peak) or `VmRSS` (now) from procfs, in bytes.
    func memory(_ field: String = "VmHWM") -> Int {
        let text = (try? String(contentsOfFile: "/proc/\(process.pid)/status", encoding: .utf8)) ?? ""  // ended: 0
        let line = text.split(separator: "\n").first { $0.hasPrefix(field + ":") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    func stop() async {
        process.signal(SIGTERM)
        _ = await process.exit(timeout: .seconds(60))
    }
}

struct BenchmarkFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Runs `wrk` for `seconds` with 8 keep-alive connections on 2 threads, each request the next of
/// `count` paths `prefix<i>.bin` (a Lua script), with `authorization` when given; returns
/// requests per second. Any non-2xx answer ends the benchmark: its rate would mean nothing.
func wrkRate(
    base: String, prefix: String, count: Int, authorization: String?, seconds: Int, scratch: String
) async throws -> Double {
    let header = authorization.map { "wrk.headers[\"Authorization\"] = \"\($0)\"\n" } ?? ""
    let script = """
        \(header)local i = 0
        request = function()
            i = i % \(count) + 1
            return wrk.format("GET", "\(prefix)" .. (i - 1) .. ".bin")
        end
        """
    let path = scratch + "/wrk-\(UUID().uuidString).lua"
    try script.write(toFile: path, atomically: true, encoding: .utf8)
    let output = try await BuiltProgram(path: try tool("wrk")).run(
        ["-t2", "-c8", "-d\(seconds)s", "-s", path, base], outputIn: scratch, timeout: .seconds(seconds + 60))
    let lines = output.stdout.split(separator: "\n")
    if let errors = lines.first(where: { $0.contains("Non-2xx") || $0.contains("Socket errors") }) {
        throw BenchmarkFailure("wrk against \(base): \(errors)\n\(output.stdout)")
    }
    guard
        let rate = lines.first(where: { $0.hasPrefix("Requests/sec:") })
            .flatMap({ Double($0.dropFirst("Requests/sec:".count).trimmingCharacters(in: .whitespaces)) })
    else { throw BenchmarkFailure("no rate in wrk's output: \(output.stdout) \(output.stderr)") }
    return rate
}

/// The absolute path of `name` on `PATH`.
func tool(_ name: String) throws -> String {
    let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
    guard let path = folders.map({ "\($0)/\(name)" }).first(where: FileManager.default.isExecutableFile) else {
        throw BenchmarkFailure("\(name) is not installed: apt-get install \(name)")
    }
    return path
}

/// Writes `size` bytes of seeded noise to `path` in 4 MiB pieces.
func writeNoise(_ path: String, size: Int) throws {
    guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path)
    else { throw BenchmarkFailure("cannot create \(path)") }
    defer { try? handle.close() }  // benchmark scaffolding
    var state: UInt64 = 0x5eed
    var written = 0
    while written < size {
        let piece = min(4 << 20, size - written)
        var bytes = [UInt8](repeating: 0, count: piece)
        bytes.withUnsafeMutableBytes { buffer in
            for index in buffer.bindMemory(to: UInt64.self).indices {
                state ^= state << 13
                state ^= state >> 7
                state ^= state << 17
                buffer.storeBytes(of: state, toByteOffset: index * 8, as: UInt64.self)
            }
        }
        try handle.write(contentsOf: bytes)
        written += piece
    }
}

func mib(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }

/// User plus system CPU time, in seconds, that the processes `pids` have used so far (procfs).
func cpuSeconds(_ pids: [Int32]) -> Double {
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    return pids.reduce(0) { total, pid in
        let text = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""  // ended: none
        // The fields after the command's closing parenthesis: utime and stime are the 12th and 13th.
        let fields = text.split(separator: ")").last?.split(separator: " ") ?? []
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return total }
        return total + (user + system) / ticks
    }
}

/// nginx's master process (started with `-p <documentRoot's folder>`) and its workers.
func nginxProcesses(documentRoot: String) -> [Int32] {
    let folder = (documentRoot as NSString).deletingLastPathComponent
    let pids = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []).compactMap { Int32($0) }
    func commandLine(_ pid: Int32) -> String {
        let data = FileManager.default.contents(atPath: "/proc/\(pid)/cmdline") ?? Data()
        return String(decoding: data.map { $0 == 0 ? 32 : $0 }, as: UTF8.self)
    }
    func parent(_ pid: Int32) -> Int32? {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""  // ended: none
        return (text.split(separator: ")").last?.split(separator: " ")).flatMap { $0.count > 1 ? Int32($0[1]) : nil }
    }
    guard let master = pids.first(where: { commandLine($0).contains(folder + "/nginx.conf") }) else { return [] }
    return [master] + pids.filter { parent($0) == master }
}

/// One `wrk` run's requests per second, and the server's CPU time per request (microseconds).
struct SmallGetSample {
    var rate: Double
    var cpuPerRequest: Double
}

/// ``wrkRate(base:prefix:count:authorization:seconds:scratch:)`` with the CPU time that the
/// processes `pids` used meanwhile: a measure that another load on the machine disturbs less than
/// the rate, which depends on how much of the cores the server gets.
func wrkSample(
    base: String, prefix: String, count: Int, authorization: String?, seconds: Int, scratch: String, pids: [Int32]
) async throws -> SmallGetSample {
    let before = cpuSeconds(pids)
    let rate = try await wrkRate(
        base: base, prefix: prefix, count: count, authorization: authorization, seconds: seconds, scratch: scratch)
    let used = cpuSeconds(pids) - before
    return SmallGetSample(rate: rate, cpuPerRequest: used / (rate * Double(seconds)) * 1e6)
}
