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

/// A seccomp filter for `--no-network`: `socket(2)` of any family but `AF_UNIX` fails with EACCES
/// (UDP, ICMP, raw, netlink: what Landlock's TCP rules do not cover); `io_uring_setup` fails with
/// EPERM (io_uring can create sockets without the `socket` system call); so does every system
/// call of another ABI (i386's `socketcall` through `int 0x80`, x32). Needs `PR_SET_NO_NEW_PRIVS`.
static int csb_deny_network_sockets(void) {
#ifdef CSB_AUDIT_ARCH
    struct sock_filter filter[] = {
        /* 0 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        /* 1 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CSB_AUDIT_ARCH, 1, 0),
        /* 2 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        /* 3 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
        /* 4 */ BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1),  // x32 system calls
#else
        /* 4 */ BPF_JUMP(BPF_JMP | BPF_JA, 1, 0, 0),
#endif
        /* 5 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        /* 6 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_io_uring_setup, 0, 1),
        /* 7 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM),
        /* 8 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_socket, 0, 3),
        /* 9 */ BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),  // domain (low word)
        /* 10 */ BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0),
        /* 11 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EACCES),
        /* 12 */ BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog program = { .len = (unsigned short)(sizeof(filter) / sizeof(filter[0])), .filter = filter };
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0);
#else
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
    for (int target = 0; target < 3; target++) {
        int source = spec->stdio_fds[target];
        if (source >= 0 && source != target && dup2(source, target) < 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_STDIO);
    }
    // The descriptor handed down becomes 3 (the report pipe moved out of its way first).
    unsigned first_closed = 3;
    if (spec->passed_fd >= 0) {
        if (report_fd == 3) {
            int moved = fcntl(report_fd, F_DUPFD_CLOEXEC, 4);
            if (moved < 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_STDIO);
            report_fd = moved;
        }
        if (spec->passed_fd == 3) {
            if (fcntl(3, F_SETFD, 0) != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_STDIO);
        } else if (dup2(spec->passed_fd, 3) < 0) {
            csb_child_fail(report_fd, CSB_SPAWN_STEP_STDIO);
        }
        first_closed = 4;
    }
    // No descriptor of the parent's but the standard streams and the one handed down (and the
    // report pipe, itself close-on-exec) reaches the program.
    if (syscall(SYS_close_range, first_closed, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        for (int fd = (int)first_closed; fd < 65536; fd++) {
            if (fd != report_fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
        }
    }
    if (spec->new_session && setsid() < 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_SESSION);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_NO_NEW_PRIVS);
    if (spec->limit_capabilities && csb_limit_capabilities(spec->kept_capabilities) != 0)
        csb_child_fail(report_fd, CSB_SPAWN_STEP_CAPABILITIES);
    if (spec->deny_network_sockets && csb_deny_network_sockets() != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_SECCOMP);
    for (int index = 0; index < spec->limit_count; index++) {
        struct rlimit limit = { .rlim_cur = spec->limits[index].soft, .rlim_max = spec->limits[index].hard };
        if (setrlimit(spec->limits[index].resource, &limit) != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_LIMITS);
    }
    if (spec->directory_fd >= 0 && fchdir(spec->directory_fd) != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_DIRECTORY);
    if (spec->ruleset_fd >= 0) {
        if (csb_landlock_restrict_self(spec->ruleset_fd) != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_RESTRICT);
        close(spec->ruleset_fd);
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
    ssize_t got;
    do { got = read(report[0], result, sizeof(result)); } while (got < 0 && errno == EINTR);
    close(report[0]);
    if (got == (ssize_t)sizeof(result)) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
        *failed_step = result[0];
        *failed_errno = result[1];
        return -1;
    }
    return pid;
}
