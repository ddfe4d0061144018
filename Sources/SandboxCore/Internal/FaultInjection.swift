#if DEBUG
    import Glibc
    import Synchronization
    import SystemPackage

    /// Makes chosen system calls of the core fail with a chosen `errno`, so that tests reach the
    /// disk-full, I/O-error and `EINTR` paths without root or a broken disk: the role of swift-nio's and
    /// swift-system's `ENABLE_MOCKING`.
    ///
    /// Compiled in debug builds only (SwiftPM defines `DEBUG` there): release builds have neither this
    /// type nor the check in ``syscall(_:path:file:line:_:)``. In a debug build the check is one relaxed
    /// atomic load per system call while no fault is injected.
    ///
    /// A fault is process-wide, so that it reaches the ``IOEngine``'s threads too, and is scoped by
    /// path instead: it applies only to calls whose path (as ``syscall(_:path:file:line:_:)`` names it
    /// in errors) contains `marker`. Tests give their files a unique name and use it as the marker, so
    /// that tests running at the same time are not touched.
    package enum FaultInjection {
        /// One injected fault; ``remove()`` it when done.
        package final class Fault: Sendable {
            let errno: Errno
            let systemCalls: Set<String>
            let marker: String
            private let counts: Mutex<(remaining: Int, fired: Int)>

            init(errno: Errno, systemCalls: Set<String>, marker: String, times: Int) {
                self.errno = errno
                self.systemCalls = systemCalls
                self.marker = marker
                counts = Mutex((remaining: times, fired: 0))
            }

            /// How many calls failed with the injected `errno` so far.
            package var fired: Int { counts.withLock { $0.fired } }

            /// Stops injecting this fault.
            package func remove() {
                let removed = FaultInjection.faults.withLock { faults in
                    let before = faults.count
                    faults.removeAll { $0 === self }
                    return before - faults.count
                }
                FaultInjection.active.subtract(removed, ordering: .relaxed)
            }

            /// Counts one firing, unless the fault has fired its number of times.
            func fire() -> Bool {
                counts.withLock { counts in
                    guard counts.remaining > 0 else { return false }
                    counts.remaining -= 1
                    counts.fired += 1
                    return true
                }
            }
        }

        static let faults = Mutex<[Fault]>([])
        static let active = Atomic<Int>(0)

        /// Makes the next `times` calls of any of `systemCalls` (the names the core gives them in errors:
        /// `"write"`, `"pwritev"`, `"pread"`, `"fsync"`, …) whose path contains `marker` fail with
        /// `errno`, without running. `EINTR` is retried like a real one.
        package static func inject(
            _ errno: Errno, into systemCalls: Set<String>, onPathsContaining marker: String, times: Int = .max
        ) -> Fault {
            let fault = Fault(errno: errno, systemCalls: systemCalls, marker: marker, times: times)
            faults.withLock { $0.append(fault) }
            active.add(1, ordering: .relaxed)
            return fault
        }

        /// Runs the system call `body`, or, when a fault applies to it, sets `errno` and returns -1 as a
        /// failed call does.
        @inline(__always)
        static func intercept<T: FixedWidthInteger>(_ name: String, path: () -> String, _ body: () -> T) -> T {
            guard active.load(ordering: .relaxed) > 0, let injected = match(name, path: path()) else { return body() }
            Glibc.errno = injected.rawValue
            return -1
        }

        private static func match(_ name: String, path: String) -> Errno? {
            let candidates = faults.withLock { faults in
                faults.filter { $0.systemCalls.contains(name) && path.contains($0.marker) }
            }
            return candidates.first { $0.fire() }?.errno
        }
    }
#endif
