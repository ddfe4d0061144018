import Foundation

/// The clocks of the `timerfd`s process `pid` holds open, from `/proc/PID/fdinfo` (`clockid:`):
/// 0 is `CLOCK_REALTIME`, 1 `CLOCK_MONOTONIC`, 7 `CLOCK_BOOTTIME`.
///
/// - Throws: ``TestFailure`` when the process's descriptors cannot be listed (it has ended).
public func timerClocks(of pid: pid_t) throws -> Set<Int> {
    let folder = "/proc/\(pid)/fd"
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else {
        throw TestFailure("cannot list \(folder): the process has ended")
    }
    var clocks: Set<Int> = []
    for name in names {
        // A descriptor closed since the listing has no link or no fdinfo: it is not counted.
        guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + name),
            target == "anon_inode:[timerfd]",
            let info = try? String(contentsOfFile: "/proc/\(pid)/fdinfo/\(name)", encoding: .utf8),
            let line = info.split(separator: "\n").first(where: { $0.hasPrefix("clockid:") }),
            let clock = Int(line.dropFirst("clockid:".count).trimmingCharacters(in: .whitespaces))
        else { continue }
        clocks.insert(clock)
    }
    return clocks
}

/// libdispatch's three clocks: `CLOCK_REALTIME`, `CLOCK_MONOTONIC` and `CLOCK_BOOTTIME`.
public let dispatchTimerClocks: Set<Int> = [0, 1, 7]
