// Landlock (landlock(7)) through raw system calls, and the child side of a confined launch (its
// seccomp filter is in seccomp_filter.c, its noexec mount of the container in private_mounts.c).
//
// The system's <linux/landlock.h> may predate the ABI the kernel offers (Ubuntu 24.04's stops at
// ABI 2), so the structures are declared here with every field up to ABI 6; the kernel accepts a
// larger structure as long as the fields it does not know are zero.
#define _GNU_SOURCE
#include "CSandboxShims.h"
#include "confined_child.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

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

/// Reports the failed step and errno to the parent and ends the child. Async-signal-safe.
void csb_child_fail(int report_fd, int step) {
    int report[2] = { step, errno };
    ssize_t written;
    do { written = write(report_fd, report, sizeof(report)); } while (written < 0 && errno == EINTR);
    _exit(127);
}

/// Reads a child's report: 1 with `result` filled when it sent a step and errno, 0 when the pipe
/// closed without one.
int csb_read_report(int fd, int result[2]) {
    ssize_t got;
    do { got = read(fd, result, 2 * sizeof(int)); } while (got < 0 && errno == EINTR);
    return got == (ssize_t)(2 * sizeof(int));
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

/// `fd` itself when it is above 4 (or -1), else a close-on-exec copy of it above 4 (3 and 4 are
/// the passed and held descriptors' places). Async-signal-safe.
static int csb_keep_above_4(int fd, int report_fd) {
    if (fd < 0 || fd > 4) return fd;
    int moved = fcntl(fd, F_DUPFD_CLOEXEC, 5);
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
    // What the child still needs moves above 4 first, where neither a standard stream nor the
    // passed and held descriptors can land on it.
    report_fd = csb_keep_above_4(report_fd, report_fd);
    int directory_fd = csb_keep_above_4(spec->directory_fd, report_fd);
    int ruleset_fd = csb_keep_above_4(spec->ruleset_fd, report_fd);
    int passed_fd = csb_keep_above_4(spec->passed_fd, report_fd);
    int held_fd = csb_keep_above_4(spec->held_fd, report_fd);
    for (int target = 0; target < 3; target++) {
        int source = spec->stdio_fds[target];
        if (source >= 0 && source != target && dup2(source, target) < 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_STDIO);
    }
    if (passed_fd >= 0 && dup2(passed_fd, 3) < 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_PASSED);
    if (held_fd >= 0 && dup2(held_fd, 4) < 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_PASSED);
    // No descriptor of the parent's but the standard streams and the passed (3) and held (4) ones
    // (and the report pipe, itself close-on-exec) reaches the program.
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        for (int fd = 3; fd < 65536; fd++) {
            if (fd != report_fd) fcntl(fd, F_SETFD, FD_CLOEXEC);
        }
    }
    if (passed_fd >= 0 && fcntl(3, F_SETFD, 0) != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_PASSED);
    if (held_fd >= 0 && fcntl(4, F_SETFD, 0) != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_PASSED);
    if (spec->new_session && setsid() < 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_SESSION);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) csb_child_fail(report_fd, CSB_SPAWN_STEP_NO_NEW_PRIVS);
    // Before the bounding set is narrowed: a new user namespace starts with a full one.
    if (directory_fd >= 0 && spec->private_mounts) {
        int step = 0;
        int count = spec->noexec_directory_count;
        if (csb_private_noexec_mount(directory_fd, spec->noexec_directories, count, &step) != 0)
            csb_child_fail(report_fd, step);
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
