/// The capabilities a confined program keeps when it runs as root; every other one is dropped from
/// its bounding set before `execve`, so a root program executes without them.
///
/// Kept: what file work in the container and giving up privileges need — `CAP_CHOWN`,
/// `CAP_DAC_OVERRIDE`, `CAP_DAC_READ_SEARCH`, `CAP_FOWNER`, `CAP_FSETID` (Landlock still confines
/// every file these reach), `CAP_KILL` (Landlock's signal scope still applies), `CAP_SETGID`,
/// `CAP_SETUID` (to become another user, never to gain: `PR_SET_NO_NEW_PRIVS`), and
/// `CAP_NET_BIND_SERVICE`. Dropped, among others: `CAP_SYS_MODULE` (loading kernel modules),
/// `CAP_SYS_BOOT` (reboot), `CAP_SYS_ADMIN`, `CAP_SYS_RAWIO`, `CAP_SYS_TIME`, `CAP_SYS_RESOURCE`
/// (so the resource limits hold), `CAP_NET_ADMIN`, `CAP_NET_RAW`, `CAP_SYS_PTRACE`, `CAP_MKNOD`,
/// `CAP_BPF`, `CAP_PERFMON`, `CAP_SETPCAP`, `CAP_SETFCAP`.
///
/// A program that does not run as root has no capabilities to drop (`PR_SET_NO_NEW_PRIVS` keeps it
/// from gaining file capabilities).
enum KeptCapabilities {
    /// Capability numbers (linux/capability.h).
    static let numbers: [Int] = [0, 1, 2, 3, 4, 5, 6, 7, 10]

    /// The bit mask `csb_confined_spawn_t.kept_capabilities` takes.
    static var mask: UInt64 { numbers.reduce(0) { $0 | 1 << UInt64($1) } }
}
