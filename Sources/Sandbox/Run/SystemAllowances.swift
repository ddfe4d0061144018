/// What every confined program may reach outside its container: what a dynamically linked
/// program, a shell or Python needs to start and to show text, read-only.
///
/// Deliberately absent: `/home`, `/root`, `/etc` (but the files below), `/etc/shadow`, `/var`,
/// `/run` (service sockets), `/sys`, `/dev/tty` (the app keeps the descriptors it was given, but
/// cannot open the terminal itself), `/tmp` (the app has its own), and every other container.
enum SystemAllowances {
    /// Programs and their libraries: read and execute. Missing ones are skipped (`/lib64` exists
    /// only on some architectures; on merged-/usr systems these are links into `/usr`).
    static let executableTrees = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"]

    /// Files read by the dynamic loader, the C library and common programs: read-only, skipped when
    /// missing. `/etc/passwd` and `/etc/group` map user and group IDs to names (`ls -l`, `id`,
    /// Python's `getpass`); they hold no secrets (password hashes are in `/etc/shadow`, which stays
    /// unreachable). `/etc/localtime` is usually a link into `/usr/share/zoneinfo`, already readable.
    static let systemFiles = [
        "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/localtime", "/etc/timezone",
        "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/locale.alias",
    ]

    /// What name resolution and TLS read: only when the network is allowed.
    static let networkFiles = [
        "/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf", "/etc/services", "/etc/protocols",
        "/etc/ssl/certs",
    ]

    /// Devices a program may open: the sinks and sources of bytes. `/dev/null` and `/dev/zero` may
    /// be opened for writing with `O_TRUNC` (a shell's `> /dev/null`).
    static let devices: [(path: String, access: FileSystemAccess)] = [
        ("/dev/null", [.readFile, .writeFile, .truncate]),
        ("/dev/zero", [.readFile, .writeFile, .truncate]),
        ("/dev/full", [.readFile, .writeFile, .truncate]),
        ("/dev/urandom", [.readFile]),
        ("/dev/random", [.readFile]),
    ]

    /// `/proc`, read-only: every process of the sandbox needs its own `/proc/self` (a shell's
    /// children have other pids than the process the launcher starts, and Landlock cannot name
    /// "the sandbox's own pids"). Landlock's `ptrace` restriction still refuses the guarded files
    /// of processes outside the sandbox (`environ`, `mem`, `maps`, `root`, `cwd`, the targets of
    /// `fd/*`); their `cmdline` and `status` stay readable, and so do `/proc/sys` values (not
    /// writable: no rule grants writing).
    static let proc = "/proc"
}
