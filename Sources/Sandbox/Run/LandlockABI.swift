import CSandboxShims
import Glibc
import SandboxCore

/// The Landlock ABI this kernel offers, read at run time with
/// `landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION)`.
public struct LandlockABI: Sendable, Hashable, CustomStringConvertible {
    /// The ABI version; 0 when the kernel has no Landlock.
    public let version: Int
    /// Why Landlock is unavailable (`version` 0), for messages.
    public let unavailableReason: String?
    /// The kernel release (`uname -r`), for messages.
    public let kernelRelease: String

    /// The ABI `sandbox run` needs to enforce everything it promises: truncation (3), TCP rules (4),
    /// `ioctl` on devices (5) and scoped signals and abstract sockets (6).
    public static let required = 6

    /// Probes the kernel.
    ///
    /// The environment variable `SANDBOX_LANDLOCK_ABI=N` caps the version at `N` (0: as if the
    /// kernel had no Landlock), so that the refusal and `--best-effort` can be tested on a
    /// current kernel; it never raises the version.
    public static func current(environment: [String: String] = [:]) -> LandlockABI {
        let release = kernelReleaseName()
        let found = csb_landlock_abi_version()
        guard found >= 1 else {
            let reason =
                switch errno {
                case ENOSYS: "the kernel was built without Landlock (CONFIG_SECURITY_LANDLOCK)"
                case EOPNOTSUPP: "Landlock is built in but not enabled: add 'landlock' to the lsm= boot parameter"
                default: "landlock_create_ruleset failed: \(String(cString: strerror(errno)))"
                }
            return LandlockABI(version: 0, unavailableReason: reason, kernelRelease: release)
        }
        if let cap = environment["SANDBOX_LANDLOCK_ABI"].flatMap({ Int($0) }), cap < Int(found) {
            let reason = cap < 1 ? "SANDBOX_LANDLOCK_ABI=\(cap) disables Landlock" : nil
            return LandlockABI(version: max(cap, 0), unavailableReason: reason, kernelRelease: release)
        }
        return LandlockABI(version: Int(found), unavailableReason: nil, kernelRelease: release)
    }

    /// For messages: "Landlock ABI 6 on Linux 6.12.0", or "no Landlock on Linux …" with the reason.
    public var description: String {
        version == 0
            ? "no Landlock on Linux \(kernelRelease) (\(unavailableReason ?? "unavailable"))"
            : "Landlock ABI \(version) on Linux \(kernelRelease)"
    }

    /// What ABI `version` leaves unenforced of the confinement, one sentence each; empty from
    /// ``required`` on.
    public func unenforced(blockingNetwork: Bool) -> [String] {
        if version == 0 {
            return ["nothing is confined: the program can read and write every file this user can"]
        }
        var gaps: [String] = []
        if version < 2 {
            gaps.append("links and renames between folders are refused everywhere (ABI 1 cannot allow them)")
        }
        if version < 3 { gaps.append("truncating files is not restricted: the bundle's files can be emptied") }
        if blockingNetwork, version < 4 {
            gaps.append("--no-network is not enforced: TCP connect and bind are allowed")
        }
        if version < 5 { gaps.append("ioctl on devices is not restricted") }
        // Abstract Unix sockets (ABI 6's other scope) are out of reach whatever the ABI: the
        // seccomp filter refuses socket(AF_UNIX).
        if version < 6 { gaps.append("signals to processes outside the sandbox are not blocked") }
        return gaps
    }

    private static func kernelReleaseName() -> String {
        var names = utsname()
        guard uname(&names) == 0 else { return "(unknown release)" }
        return withUnsafeBytes(of: names.release) { bytes in
            String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
        }
    }
}
