import Foundation
import Glibc
import SandboxTesting

extension ShareServerProcess {
    /// The processor time the server has used so far (user and system), from `/proc/PID/stat`.
    ///
    /// - Throws: ``TestFailure`` when the process has ended.
    func processorTime() throws -> Duration {
        guard let text = try? String(contentsOfFile: "/proc/\(process.pid)/stat", encoding: .utf8),
            let end = text.lastIndex(of: ")")
        else { throw ended(reading: "/proc/\(process.pid)/stat") }
        // After the command's closing parenthesis: state is field 3, utime 14 and stime 15.
        let fields = text[text.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else {
            throw TestFailure("unexpected /proc/\(process.pid)/stat: \(text)")
        }
        return .milliseconds((user + system) * 1000 / sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The failure for a procfs read that found the server gone, with the end of what it wrote on
    /// standard error (a crash says why there).
    func ended(reading path: String) -> TestFailure {
        TestFailure(
            "cannot read \(path): the server has ended (\(process.ended.map { "\($0)" } ?? "not reaped yet")); "
                + "its standard error ends: \(log().suffix(3000))")
    }

    /// How many descriptors the server has open.
    ///
    /// - Throws: ``TestFailure`` when the process has ended.
    func openDescriptors() throws -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.pid)/fd") else {
            throw ended(reading: "/proc/\(process.pid)/fd")
        }
        return names.count
    }

    /// The server's limit on open descriptors, soft and hard (`Max open files` in
    /// `/proc/PID/limits`).
    ///
    /// - Throws: ``TestFailure`` when it cannot be read.
    func descriptorLimit() throws -> DescriptorLimit {
        do {
            return try DescriptorLimit.of(process.pid)
        } catch {
            if process.isRunning { throw error }
            throw ended(reading: "/proc/\(process.pid)/limits")
        }
    }

    /// Sets the running server's limit on open descriptors (soft and hard) to `value`, with
    /// util-linux's `prlimit` (Glibc's `prlimit` is not visible to Swift).
    ///
    /// - Throws: ``TestFailure`` when it cannot be set.
    func limitDescriptors(to value: Int) async throws {
        let result = try await BuiltProgram(path: "/usr/bin/prlimit").run(
            ["--pid", "\(process.pid)", "--nofile=\(value):\(value)"], outputIn: scratch.path)
        guard result.status == 0 else { throw TestFailure("prlimit --nofile=\(value): \(result.stderr)") }
    }
}

/// Raises this process's soft limit on open descriptors to its hard one (for tests that hold
/// thousands of connections) and returns it.
func raiseOwnDescriptorLimit() -> Int {
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    var limit = rlimit()
    guard getrlimit(resource, &limit) == 0 else { return 1024 }
    limit.rlim_cur = limit.rlim_max
    _ = setrlimit(resource, &limit)  // not raised: the limit read back below says how far
    guard getrlimit(resource, &limit) == 0 else { return 1024 }
    return Int(clamping: limit.rlim_cur)
}
