import Foundation
import Glibc
import SandboxTesting

/// The soak's device: a home, a runtime folder and a user home of its own in the scratch folder,
/// and the one way the soak runs a command — bounded, its end judged (a hang or a crash is a
/// violation; a SIGKILL the soak sent is a fault it injected).
struct SoakDevice: Sendable {
    let scratch: String
    let binaries: String
    let recorder: SoakRecorder

    var home: String { scratch + "/home" }
    var runtime: String { scratch + "/run" }
    /// `$HOME` of every process: rclone's configuration and cache stay in the scratch folder.
    var user: String { scratch + "/user" }
    var repository: String { scratch + "/repository" }
    /// Where the long-lived processes' output goes.
    var logs: String { scratch + "/logs" }

    /// The environment of every process the soak starts.
    var environment: [String: String] {
        [
            "SANDBOX_HOME": home, "XDG_RUNTIME_DIR": runtime, "HOME": user, "SANDBOXD_IDLE_EXIT": "100000",
            "XDG_CONFIG_HOME": user + "/.config", "XDG_CACHE_HOME": user + "/.cache",
        ]
    }

    /// The host path of `app`'s Documents.
    func documents(_ app: String) -> String { home + "/Containers/Data/\(app)/Documents" }

    /// A built program of this package.
    func built(_ name: String) -> BuiltProgram { BuiltProgram(path: binaries + "/" + name) }

    /// What ``run(_:_:input:bound:killAfter:)`` saw.
    struct Outcome: Sendable {
        var output: ProgramOutput
        /// Ended by the SIGKILL the soak sent (`killAfter`).
        var killed: Bool
        var succeeded: Bool { output.exit == .exited(0) }
        /// The error code the CLI printed (`[code]` at the end of its message), or the exit.
        var failure: String {
            if let open = output.stderr.lastIndex(of: "["), let close = output.stderr.lastIndex(of: "]"), open < close {
                return String(output.stderr[output.stderr.index(after: open)..<close])
            }
            return output.exit.description
        }
    }

    /// Runs `program ARGUMENTS…` to its end, killing it after `bound` (a hang: a violation) or,
    /// with `killAfter`, with SIGKILL that long after its start (a fault). An end by any other
    /// signal is a crash: a violation.
    func run(
        _ program: BuiltProgram, _ arguments: [String], input: [UInt8]? = nil, bound: Duration = .seconds(120),
        killAfter: Duration? = nil
    ) async throws -> Outcome {
        let folder = scratch + "/out/" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }  // scratch output: removed with the run anyway
        let running = try program.start(arguments, environment: environment, input: input, outputIn: folder)
        if let killAfter { running.signal(SIGKILL, after: killAfter) }
        let output = try await running.finish(timeout: bound)
        let name = ([URL(fileURLWithPath: program.path).lastPathComponent] + arguments.prefix(2)).joined(separator: " ")
        let killed = killAfter != nil && output.exit.signal == SIGKILL && !output.exit.timedOut
        if output.exit.timedOut {
            await recorder.violation("hung: '\(name)' ran past \(bound); stderr: \(output.stderr.suffix(500))")
        } else if let signal = output.exit.signal, !killed {
            await recorder.violation(
                "crashed: '\(name)' ended by signal \(signal); stderr: \(output.stderr.suffix(800))")
        }
        return Outcome(output: output, killed: killed)
    }

    /// Runs `sandbox ARGUMENTS…` (see ``run(_:_:input:bound:killAfter:)``).
    func sandbox(
        _ arguments: [String], input: [UInt8]? = nil, bound: Duration = .seconds(120), killAfter: Duration? = nil
    ) async throws -> Outcome {
        try await run(built("sandbox"), arguments, input: input, bound: bound, killAfter: killAfter)
    }

    /// Runs `sandbox ARGUMENTS…` during set-up, where anything but success stops the run.
    ///
    /// - Throws: ``SoakError`` with the command's error output when it fails.
    @discardableResult
    func setUp(_ arguments: [String], input: [UInt8]? = nil) async throws -> String {
        let outcome = try await sandbox(arguments, input: input)
        guard outcome.succeeded else {
            throw SoakError("set-up: sandbox \(arguments.joined(separator: " ")): \(outcome.output.stderr)")
        }
        return outcome.output.stdout
    }

    /// The `sandboxd` processes serving this home (the soak's own, and any a command started).
    func daemonPIDs() -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []  // no /proc: none
        return entries.compactMap { entry -> pid_t? in
            guard let pid = pid_t(entry), let data = FileManager.default.contents(atPath: "/proc/\(entry)/cmdline")
            else { return nil }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            guard arguments.first?.hasSuffix("/sandboxd") == true else { return nil }
            let homeIndex = arguments.firstIndex(of: "--home")
            return homeIndex.map { arguments.indices.contains($0 + 1) && arguments[$0 + 1] == home } == true
                ? pid : nil
        }
    }

    /// A process's `VmHWM` (its peak resident memory) in bytes, or `nil` once it has ended.
    static func peakMemory(of pid: pid_t) -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),  // ended: no peak
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kibibytes = line.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return nil }
        return kibibytes * 1024
    }

    /// Every process below `pid` (children, theirs, …), from `/proc/<pid>/task/*/children`.
    static func descendants(of pid: pid_t) -> [pid_t] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []  // ended: none
        let children = tasks.flatMap { task -> [pid_t] in
            let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/children", encoding: .utf8)) ?? ""
            return text.split(separator: " ").compactMap { pid_t($0) }
        }
        return children + children.flatMap { descendants(of: $0) }
    }
}
