import Foundation
import Glibc
import SandboxTesting

/// `sandbox share` running as a real process against a fresh home with one app, the way a user
/// starts it: its standard output and error go to files in a scratch folder, and the URL and the
/// pairing code are read back from what it printed.
///
/// Use ``with(app:arguments:_:)``: it stops the server when the body returns and checks that
/// SIGTERM ended it with status 0.
final class ShareServerProcess: Sendable {
    let scratch: ScratchDirectory
    /// `SANDBOX_HOME` of the server.
    let home: String
    let app: String
    /// The host path of the app's `Documents`, the folder that is shared.
    let documents: String
    let port: Int
    let code: String
    /// The URL the server printed, `http://127.0.0.1:<port>/`.
    let url: String
    let process: RunningProgram

    private init(
        scratch: ScratchDirectory, home: String, app: String, documents: String, port: Int, code: String,
        url: String, process: RunningProgram
    ) {
        self.scratch = scratch
        self.home = home
        self.app = app
        self.documents = documents
        self.port = port
        self.code = code
        self.url = url
        self.process = process
    }

    /// Starts `sandbox share APP --port 0 ARGUMENTS…` in a fresh home, runs `body`, then stops the
    /// server (SIGTERM) and fails unless it exited with status 0.
    static func with<T>(
        app: String = "com.example.share",
        arguments: [String] = [],
        descriptorLimit: DescriptorLimit? = nil,
        environment: [String: String] = [:],
        launcher: [String] = [],
        _ body: (ShareServerProcess) async throws -> T
    ) async throws -> T {
        let server = try await start(
            app: app, arguments: arguments, descriptorLimit: descriptorLimit, environment: environment,
            launcher: launcher)
        let result: T
        do {
            result = try await body(server)
        } catch {
            _ = await server.stopped()  // the body's failure is the one to report
            throw error
        }
        try await server.stop()
        return result
    }

    /// The limit on open descriptors (`RLIMIT_NOFILE`) a server starts with.
    /// Creates the app in a fresh home and starts `sandbox share` on a free port (under
    /// `descriptorLimit`, set by a shell that then runs it, when given); returns once it printed
    /// its URL and pairing code. `environment` is added to the server's; `launcher` (a program and
    /// its arguments, e.g. `ip netns exec NAME`) runs it when given.
    ///
    /// - Throws: ``TestFailure`` when the app cannot be made or the server does not start within
    ///   60 s (its standard error is in the message).
    static func start(
        app: String = "com.example.share", arguments: [String] = [], descriptorLimit: DescriptorLimit? = nil,
        environment extra: [String: String] = [:], launcher prefix: [String] = []
    ) async throws -> ShareServerProcess {
        let scratch = try ScratchDirectory.make(prefix: "sandbox-share")
        let home = scratch.appending("home")
        let sandbox = try BuiltProgram("sandbox")
        let environment = ["SANDBOX_HOME": home]
        let created = try await sandbox.run(
            ["create", app, "--file-sharing"], environment: environment, outputIn: scratch.path)
        guard created.status == 0 else { throw TestFailure("sandbox create \(app): \(created.stderr)") }
        let located = try await sandbox.run(
            ["path", app, "documents"], environment: environment, outputIn: scratch.path)
        let documents = located.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        guard located.status == 0, !documents.isEmpty else {
            throw TestFailure("sandbox path \(app) documents: \(located.stderr)")
        }
        var launcher = sandbox
        var command = ["share", app, "--port", "0"] + arguments
        if let descriptorLimit {
            launcher = BuiltProgram(path: "/bin/sh")
            let limits = "ulimit -Sn \(descriptorLimit.soft) && ulimit -Hn \(descriptorLimit.hard)"
            command = ["-c", limits + " && exec \"$0\" \"$@\"", sandbox.path] + command
        } else if let program = prefix.first {
            launcher = BuiltProgram(path: program)
            command = Array(prefix.dropFirst()) + [sandbox.path] + command
        }
        let process = try launcher.start(
            command, environment: environment.merging(extra) { _, new in new }, outputIn: scratch.path)
        let printed = await eventually(timeout: .seconds(60)) {
            let text = (try? process.standardOutput()) ?? ""  // not written yet: keep waiting
            return Self.value(after: "Pairing code:", in: text) != nil || !process.isRunning
        }
        let text = try process.standardOutput()
        guard printed, process.isRunning, let url = value(after: "URL:", in: text),
            let code = value(after: "Pairing code:", in: text),
            let port = URLComponents(string: url)?.port
        else {
            process.signal(SIGKILL)
            let exit = await process.exit(timeout: .seconds(10))
            defer { scratch.remove() }
            throw TestFailure(
                "sandbox share did not start (\(exit)); stdout: \(text); stderr: \(try process.standardError())")
        }
        return ShareServerProcess(
            scratch: scratch, home: home, app: app, documents: documents, port: port, code: code, url: url,
            process: process)
    }

    /// A second `sandbox share` of `server`'s app, in its home, with `environment` added (its
    /// output in a scratch folder of its own); stop it before `server`.
    ///
    /// - Throws: ``TestFailure`` when it does not start within 60 s.
    static func alongside(
        _ server: ShareServerProcess, environment extra: [String: String]
    ) async throws
        -> ShareServerProcess
    {
        let scratch = try ScratchDirectory.make(prefix: "sandbox-share-alongside")
        let environment = ["SANDBOX_HOME": server.home].merging(extra) { _, new in new }
        let process = try BuiltProgram("sandbox").start(
            ["share", server.app, "--port", "0"], environment: environment, outputIn: scratch.path)
        let printed = await eventually(timeout: .seconds(60)) {
            let text = (try? process.standardOutput()) ?? ""  // not written yet: keep waiting
            return Self.value(after: "Pairing code:", in: text) != nil || !process.isRunning
        }
        let text = try process.standardOutput()
        guard printed, process.isRunning, let url = value(after: "URL:", in: text),
            let code = value(after: "Pairing code:", in: text), let port = URLComponents(string: url)?.port
        else {
            process.signal(SIGKILL)
            _ = await process.exit(timeout: .seconds(10))
            defer { scratch.remove() }
            throw TestFailure("a second sandbox share did not start; stderr: \(try process.standardError())")
        }
        return ShareServerProcess(
            scratch: scratch, home: server.home, app: server.app, documents: server.documents, port: port, code: code,
            url: url, process: process)
    }

    /// The text after `label` on the first line that starts with it (spaces trimmed).
    static func value(after label: String, in text: String) -> String? {
        for line in text.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix(label) {
                let value = trimmed.dropFirst(label.count).trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// `127.0.0.1:<port>`, the `Host` the server accepts.
    var host: String { "127.0.0.1:\(port)" }

    /// The value of an `Authorization` header with the right credentials.
    var authorization: String { Self.basic(user: "sandbox", password: code) }

    /// `Basic base64(user:password)`.
    static func basic(user: String, password: String) -> String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// `documents/relative`.
    func documents(_ relative: String) -> String { documents + "/" + relative }

    /// The server's peak resident memory so far (`VmHWM`), in bytes.
    ///
    /// - Throws: ``TestFailure`` when the process has ended or procfs cannot be read.
    func peakResidentBytes() throws -> Int { try Self.memory("VmHWM", of: process.pid) }

    /// The server's resident memory now (`VmRSS`), in bytes.
    func residentBytes() throws -> Int { try Self.memory("VmRSS", of: process.pid) }

    static func memory(_ field: String, of pid: pid_t) throws -> Int {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else {
            throw TestFailure("cannot read /proc/\(pid)/status: the server has ended")
        }
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let kibibytes = line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first.flatMap({
                Int($0)
            })
        else { throw TestFailure("no \(field) in /proc/\(pid)/status") }
        return kibibytes * 1024
    }

    /// What the server logged on standard error so far (one line per request).
    func log() -> String { (try? process.standardError()) ?? "" }  // for failure messages only

    /// Sends SIGTERM and waits (60 s at most) for the server to end.
    func stopped() async -> ProgramExit {
        process.signal(SIGTERM)
        return await process.exit(timeout: .seconds(60))
    }

    /// Stops the server with SIGTERM.
    ///
    /// - Throws: ``TestFailure`` unless it exited with status 0.
    func stop() async throws {
        let exit = await stopped()
        guard exit == .exited(0) else {
            throw TestFailure("sandbox share ended with \(exit) on SIGTERM; stderr: \(log().suffix(2000))")
        }
    }

    deinit {
        process.signal(SIGKILL)  // a no-op once stopped
        scratch.remove()
    }
}
