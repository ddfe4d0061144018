// Landlock (landlock(7)) through raw system calls, and the child side of a confined launch.
//
// The system's <linux/landlock.h> may predate the ABI the kernel offers (Ubuntu 24.04's stops at
// ABI 2), so the structures are declared here with every field up to ABI 6; the kernel accepts a
// larger structure as long as the fields it does not know are zero.
#define _GNU_SOURCE
#include "CSandboxShims.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <sys/socket.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef SYS_landlock_create_ruleset
#define SYS_landlock_create_ruleset 444
#endif
#ifndef SYS_landlock_add_rule
#define SYS_landlock_add_rule 445
#endif
#ifndef SYS_landlock_restrict_self
#define SYS_landlock_restrict_self 446
#endif
#ifndef LANDLOCK_CREATE_RULESET_VERSION
#define LANDLOCK_CREATE_RULESET_VERSION (1U << 0)
#endif
#ifndef PR_SET_NO_NEW_PRIVS
#define PR_SET_NO_NEW_PRIVS 38
#endif
#ifndef SYS_close_range
#define SYS_close_range 436
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

/// `struct landlock_ruleset_attr` as of ABI 6.
struct csb_landlock_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;  // ABI 4
    uint64_t scoped;              // ABI 6
};

/// `struct landlock_path_beneath_attr` (packed, as the kernel declares it).
struct csb_landlock_path_beneath_attr {
    uint64_t allowed_access;
    int32_t parent_fd;
} __attribute__((packed));

/// `struct landlock_net_port_attr` (ABI 4).
struct csb_landlock_net_port_attr {
    uint64_t allowed_access;
    uint64_t port;
};

enum { CSB_LANDLOCK_RULE_PATH_BENEATH = 1, CSB_LANDLOCK_RULE_NET_PORT = 2 };

int csb_landlock_abi_version(void) {
    return (int)syscall(SYS_landlock_create_ruleset, NULL, (size_t)0, LANDLOCK_CREATE_RULESET_VERSION);
}

int csb_landlock_create_ruleset(uint64_t handled_fs, uint64_t handled_net, uint64_t scoped) {
    struct csb_landlock_ruleset_attr attr = {
        .handled_access_fs = handled_fs, .handled_access_net = handled_net, .scoped = scoped,
    };
    // Older kernels refuse a structure longer than theirs unless the extra fields are zero, so the
    // size passed is the shortest that holds every field in use.
    size_t size = scoped ? sizeof(attr) : handled_net ? offsetof(struct csb_landlock_ruleset_attr, scoped)
                                                      : offsetof(struct csb_landlock_ruleset_attr, handled_access_net);
    return (int)syscall(SYS_landlock_create_ruleset, &attr, size, 0U);
}

int csb_landlock_add_path_rule(int ruleset_fd, int parent_fd, uint64_t allowed_access) {
    struct csb_landlock_path_beneath_attr attr = { .allowed_access = allowed_access, .parent_fd = parent_fd };
    return (int)syscall(SYS_landlock_add_rule, ruleset_fd, CSB_LANDLOCK_RULE_PATH_BENEATH, &attr, 0U);
}

int csb_landlock_add_net_rule(int ruleset_fd, uint64_t port, uint64_t allowed_access) {
    struct csb_landlock_net_port_attr attr = { .allowed_access = allowed_access, .port = port };
    return (int)syscall(SYS_landlock_add_rule, ruleset_fd, CSB_LANDLOCK_RULE_NET_PORT, &attr, 0U);
}

int csb_landlock_restrict_self(int ruleset_fd) {
    return (int)syscall(SYS_landlock_restrict_self, ruleset_fd, 0U);
}

// MARK: - The child of a confined launch

#if defined(__x86_64__)
#define CSB_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CSB_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup 425
#endif
#ifndef SYS_memfd_secret
#define SYS_memfd_secret 447
#endif
#ifndef SHM_EXEC
#define SHM_EXEC 0100000
#endif

/// The seccomp filter of every confined launch. Refused with EPERM: `io_uring_setup` (io_uring
/// opens files, makes sockets and runs operations without the system calls below); `memfd_create`
/// and `memfd_secret` (a file of memory, which Landlock does not mediate, could be written then
/// executed: `execveat`, `/proc/self/fd/N`); `shmat` with `SHM_EXEC`; `mmap` of shared memory with
/// `PROT_EXEC` (two mappings of one object, one writable: written code run without ever gaining
/// execution, which `PR_SET_MDWE` watches); `ptrace` (writes code into a child's text); every
/// system call of another ABI (i386's `int 0x80`, x32). `socket(AF_UNIX, …)` fails with EACCES:
/// Landlock does not mediate `connect` on a path Unix socket (`socketpair` stays: the program's own
/// processes talk through it). With `deny_network`, `socket` of every other family fails with
/// EACCES too (UDP, ICMP, raw, netlink: what Landlock's TCP rules do not cover). Needs
/// `PR_SET_NO_NEW_PRIVS`.
static int csb_install_seccomp_filter(int deny_network) {
#ifdef CSB_AUDIT_ARCH
    enum { ALLOW = 21, DENY = 22, DENY_SOCKET = 23 };
#define CSB_TO(from, to) (unsigned char)((to) - (from) - 1)
    struct sock_filter filter[] = {
        /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CSB_AUDIT_ARCH, 1, 0),
        /* 2 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        /* 3 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
        /* 4 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, CSB_TO(4, DENY), 0),  // x32 system calls
#else
        /* 4 */ BPF_JUMP(BPF_JMP | BPF_JA, 0, 0, 0),
#endif
        /* 5 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, CSB_TO(5, DENY), 0),
        /* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_memfd_create, CSB_TO(6, DENY), 0),
        /* 7 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_memfd_secret, CSB_TO(7, DENY), 0),
        /* 8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_ptrace, CSB_TO(8, DENY), 0),
        /* 9 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_shmat, 0, CSB_TO(9, 12)),
        /* 10 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),  // shmflg
        /* 11 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, SHM_EXEC, CSB_TO(11, DENY), CSB_TO(11, ALLOW)),
        /* 12 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_mmap, 0, CSB_TO(12, 17)),
        /* 13 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[2])),  // prot
        /* 14 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, PROT_EXEC, 0, CSB_TO(14, ALLOW)),
        /* 15 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[3])),  // flags
        /* 16 */ BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, MAP_SHARED, CSB_TO(16, DENY), CSB_TO(16, ALLOW)),
        /* 17 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, CSB_TO(17, ALLOW)),
        /* 18 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),  // domain (low word)
        /* 19 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, CSB_TO(19, DENY_SOCKET), 0),
        /* 20 */ BPF_STMT(BPF_RET | BPF_K, deny_network ? SECCOMP_RET_ERRNO | EACCES : SECCOMP_RET_ALLOW),
        /* 21 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /* 22 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        /* 23 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
    };
    _Static_assert(sizeof(filter) / sizeof(filter[0]) == DENY_SOCKET + 1, "the labels name the last three instructions");
#undef CSB_TO
    struct sock_fprog program = { .len = (unsigned short)(sizeof(filter) / sizeof(filter[0])), .filter = filter };
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
#else
    (void)deny_network;
    errno = ENOSYS;
    return -1;
#endif
}

/// Reports the failed step and errno to the parent and ends the child. Async-signal-safe.
static void csb_child_fail(int report_fd, int step) {
    int report[2] = { step, errno };
    ssize_t written;
    do { written = write(report_fd, report, sizeof(report)); } while (written < 0 && errno == EINTR);
    _exit(127);
}

#ifndef SYS_open_tree
#define SYS_open_tree 428
#endif
#ifndef SYS_move_mount
#define SYS_move_mount 429
#endif
#ifndef SYS_mount_setattr
#define SYS_mount_setattr 442
#endif
#ifndef OPEN_TREE_CLONE
#define OPEN_TREE_CLONE 1
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE 0x8000
#endif
#ifndef MOVE_MOUNT_F_EMPTY_PATH
#define MOVE_MOUNT_F_EMPTY_PATH 0x00000004
#endif
#define CSB_MOUNT_ATTR_NOSUID 0x00000002
#define CSB_MOUNT_ATTR_NODEV 0x00000004
#define CSB_MOUNT_ATTR_NOEXEC 0x00000008

/// `struct mount_attr` (Linux 5.12), declared here: older C libraries lack it.
struct csb_mount_attr {
    uint64_t attr_set;
    uint64_t attr_clr;
    uint64_t propagation;
    uint64_t userns_fd;
};

/// Writes `text` to the file at `path` (a `/proc/self` file). Async-signal-safe.
static int csb_write_file(const char *path, const char *text, size_t length) {
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t written;
    do { written = write(fd, text, length); } while (written < 0 && errno == EINTR);
    int saved = errno;
    close(fd);
    errno = saved;
    return written == (ssize_t)length ? 0 : -1;
}

/// Writes "ID ID 1\n" (one ID mapped to itself) into `buffer`; returns its length. Async-signal-safe.
static size_t csb_identity_map(char buffer[48], unsigned int id) {
    char digits[12];
    size_t count = 0;
    do { digits[count++] = (char)('0' + id % 10); id /= 10; } while (id > 0);
    size_t length = 0;
    for (int copy = 0; copy < 2; copy++) {
        for (size_t index = count; index > 0; index--) buffer[length++] = digits[index - 1];
        buffer[length++] = ' ';
    }
    buffer[length++] = '1';
    buffer[length++] = '\n';
    return length;
}

/// A private mount namespace: `CLONE_NEWNS` alone when the caller may (root with
/// `CAP_SYS_ADMIN`), else with `CLONE_NEWUSER` and the caller's own user and group mapped to
/// themselves (`setgroups` denied, as an unprivileged map requires). Async-signal-safe.
static int csb_unshare_mounts(int *failed_step) {
    if (unshare(CLONE_NEWNS) == 0) return 0;
    if (errno != EPERM) {
        *failed_step = CSB_SPAWN_STEP_UNSHARE;
        return -1;
    }
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0) {
        *failed_step = CSB_SPAWN_STEP_UNSHARE;
        return -1;
    }
    char map[48];
    if (csb_write_file("/proc/self/uid_map", map, csb_identity_map(map, uid)) != 0
        || csb_write_file("/proc/self/setgroups", "deny", 4) != 0
        || csb_write_file("/proc/self/gid_map", map, csb_identity_map(map, gid)) != 0) {
        *failed_step = CSB_SPAWN_STEP_ID_MAPS;
        return -1;
    }
    return 0;
}

/// Makes the directory `directory_fd` (and everything mounted beneath it) `noexec,nosuid,nodev`
/// for this process and what it executes, and makes it the working directory: nothing in it can
/// be executed, nor mapped executable (the loader's `mmap(PROT_EXEC)`, which Landlock does not
/// mediate).
///
/// A private mount namespace (`csb_unshare_mounts`) whose mounts are all made private first
/// (nothing done here propagates to the host's namespace); then a recursive clone of the
/// directory (`open_tree(OPEN_TREE_CLONE | AT_RECURSIVE)`), given the three attributes
/// (`mount_setattr`) and moved onto the directory itself (`move_mount`). The directory is reached
/// through the working directory, set from `directory_fd` before the namespace is made (which then
/// refers to the namespace's copy of the same mount): no host path is resolved, and a descriptor
/// of the old namespace's mount would be refused (EINVAL) by `open_tree` and `move_mount`. The new
/// working directory is the new mount's root, so `./prog` is looked up through it.
/// Async-signal-safe; on failure sets `*failed_step` and errno.
static int csb_private_noexec_mount(int directory_fd, int *failed_step) {
    if (fchdir(directory_fd) != 0) {
        *failed_step = CSB_SPAWN_STEP_DIRECTORY;
        return -1;
    }
    if (csb_unshare_mounts(failed_step) != 0) return -1;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        *failed_step = CSB_SPAWN_STEP_MOUNT_PRIVATE;
        return -1;
    }
    int tree = (int)syscall(SYS_open_tree, AT_FDCWD, ".", OPEN_TREE_CLONE | AT_RECURSIVE | O_CLOEXEC);
    if (tree < 0) {
        *failed_step = CSB_SPAWN_STEP_OPEN_TREE;
        return -1;
    }
    struct csb_mount_attr attributes = {
        .attr_set = CSB_MOUNT_ATTR_NOEXEC | CSB_MOUNT_ATTR_NOSUID | CSB_MOUNT_ATTR_NODEV,
    };
    int step = 0;
    if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attributes, sizeof(attributes)) != 0) {
        step = CSB_SPAWN_STEP_MOUNT_SETATTR;
    } else if (syscall(SYS_move_mount, tree, "", AT_FDCWD, ".", MOVE_MOUNT_F_EMPTY_PATH) != 0) {
        step = CSB_SPAWN_STEP_MOVE_MOUNT;
    } else if (fchdir(tree) != 0) {
        step = CSB_SPAWN_STEP_DIRECTORY;
    }
    int saved = errno;
    close(tree);
    errno = saved;
    if (step != 0) {
        *failed_step = step;
        return -1;
    }
    return 0;
}

#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#endif
#ifndef PR_GET_MDWE
#define PR_GET_MDWE 66
#endif
#ifndef PR_MDWE_REFUSE_EXEC_GAIN
#define PR_MDWE_REFUSE_EXEC_GAIN (1UL << 0)
#endif

int csb_mdwe_supported(void) {
    return prctl(PR_GET_MDWE, 0, 0, 0, 0) >= 0;
}

/// Reads a child's report: 1 with `result` filled when it sent a step and errno, 0 when the pipe
/// closed without one.
static int csb_read_report(int fd, int result[2]) {
    ssize_t got;
    do { got = read(fd, result, 2 * sizeof(int)); } while (got < 0 && errno == EINTR);
    return got == (ssize_t)(2 * sizeof(int));
}

int csb_probe_private_mounts(int directory_fd, int *failed_step) {
    *failed_step = 0;
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        *failed_step = CSB_SPAWN_STEP_FORK;
        return errno;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(report[0]);
        int step = 0;
        if (csb_private_noexec_mount(directory_fd, &step) != 0) csb_child_fail(report[1], step);
        _exit(0);
    }
    int saved = errno;
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        *failed_step = CSB_SPAWN_STEP_FORK;
        return saved;
    }
    int result[2] = { 0, 0 };
    int failed = csb_read_report(report[0], result);
    close(report[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (failed) {
        *failed_step = result[0];
        return result[1];
    }
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : ECHILD;
}

#ifndef PR_CAPBSET_DROP
#define PR_CAPBSET_DROP 24
#endif

/// Drops from the capability bounding set every capability but those in `kept` (a bit mask of
/// capability numbers): a root program then executes with only those. Numbers the kernel does not
/// know (EINVAL) end the loop; EPERM (no `CAP_SETPCAP`: not root, nothing to drop) is ignored.
static int csb_limit_capabilities(uint64_t kept) {
    for (int capability = 0; capability < 64; capability++) {
        if (kept & (1ULL << capability)) continue;
        if (prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0) {
            if (errno == EINVAL) return 0;
            if (errno != EPERM) return -1;
        }
    }
    return 0;
}

/// `fd` itself when it is above 3 (or -1), else a close-on-exec copy of it above 3. Async-signal-safe.
static int csb_keep_above_3(int fd, int report_fd) {
    if (fd < 0 || fd > 3) return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, 4);
    if (moved < 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_STDIO);
    return moved;
}

/// Everything between fork and execve: only async-signal-safe calls (signal-safety(7)); no
/// allocation, no locks, no Swift.
static void csb_confined_child(const csb_confined_spawn_t *spec, int report_fd) {
    // A clean signal state whatever the parent's thread had: nothing blocked, every disposition at
    // its default (the CLI ignores SIGPIPE, and ignored dispositions survive execve).
    sigset_t none;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_SIGNALS);
    struct sigaction fallback;
    memset(&fallback, 0, sizeof(fallback));
    fallback.sa_handler = SIG_DFL;
    for (int number = 1; number < NSIG; number++) {
        if (number == SIGKILL || number == SIGSTOP) continue;
        sigaction(number, &fallback, NULL);  // EINVAL for the numbers glibc reserves: nothing to reset
    }
    // What the child still needs moves above 3 first, where neither a standard stream nor the
    // passed descriptor can land on it.
    report_fd = csb_keep_above_3(report_fd, report_fd);
    int directory_fd = csb_keep_above_3(spec->directory_fd, report_fd);
    int ruleset_fd = csb_keep_above_3(spec->ruleset_fd, report_fd);
    int passed_fd = csb_keep_above_3(spec->passed_fd, report_fd);
    for (int target = 0; target < 3; target++) {
        int source = spec->stdio_fds[target];
        if (source >= 0 && source != target && dup2(source, target) < 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_STDIO);
    }
    if (passed_fd >= 0 && dup2(passed_fd, 3) < 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_PASSED);
    // No descriptor of the parent's but the standard streams and the passed one (and the report
    // pipe, itself close-on-exec) reaches the program.
    unsigned int first_closed = passed_fd >= 0 ? 4U : 3U;
    if (syscall(SYS_close_range, first_closed, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        for (int fd = (int)first_closed; fd < 65536; fd++) {
            if (fd != report_fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
        }
    }
    if (spec->new_session && setsid() < 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_SESSION);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_NO_NEW_PRIVS);
    // Before the bounding set is narrowed: a new user namespace starts with a full one.
    if (directory_fd >= 0 && spec->private_mounts) {
        int step = 0;
        if (csb_private_noexec_mount(directory_fd, &step) != 0) csb_child_fail(report_fd, step);
    } else if (directory_fd >= 0 && fchdir(directory_fd) != 0) {
        csb_child_fail(report_fd, CSB_SPAWN_STEP_DIRECTORY);
    }
    if (spec->limit_capabilities && csb_limit_capabilities(spec->kept_capabilities) != 0)
        csb_child_fail(report_fd, CSB_SPAWN_STEP_CAPABILITIES);
    if (spec->refuse_exec_gain && prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0)
        csb_child_fail(report_fd, CSB_SPAWN_STEP_MDWE);
    if (csb_install_seccomp_filter(spec->deny_network_sockets) != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_SECCOMP);
    for (int index = 0; index < spec->limit_count; index++) {
        struct rlimit limit = { .rlim_cur = spec->limits[index].soft, .rlim_max = spec->limits[index].hard };
        if (setrlimit(spec->limits[index].resource, &limit) != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_LIMITS);
    }
    if (ruleset_fd >= 0) {
        if (csb_landlock_restrict_self(ruleset_fd) != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_RESTRICT);
        close(ruleset_fd);
    }
    execve(spec->path, spec->argv, spec->envp);
    csb_child_fail(report_fd, CSB_SPAWN_STEP_EXEC);
}

pid_t csb_confined_spawn(const csb_confined_spawn_t *spec, int *failed_step, int *failed_errno) {
    *failed_step = 0;
    *failed_errno = 0;
    int report[2];
    if (pipe2(report, O_CLOEXEC) != 0) {
        *failed_step = CSB_SPAWN_STEP_FORK;
        *failed_errno = errno;
        return -1;
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(report[0]);
        csb_confined_child(spec, report[1]);
    }
    int saved = errno;
    close(report[1]);
    if (pid < 0) {
        close(report[0]);
        *failed_step = CSB_SPAWN_STEP_FORK;
        *failed_errno = saved;
        return -1;
    }
    // The pipe closes on execve (close-on-exec) or carries the step and errno of a failure.
    int result[2] = { 0, 0 };
    int failed = csb_read_report(report[0], result);
    close(report[0]);
    if (failed) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        *failed_step = result[0];
        *failed_errno = result[1];
        return -1;
    }
    return pid;
}
