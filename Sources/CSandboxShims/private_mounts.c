// The data container and the App Group containers mounted noexec in a private mount namespace, for
// a confined launch: the loader's mmap(PROT_EXEC) of a file the app wrote, which Landlock does not
// mediate, then fails.
#define _GNU_SOURCE
#include "CSandboxShims.h"
#include "confined_child.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/wait.h>

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
#ifndef MOVE_MOUNT_T_EMPTY_PATH
#define MOVE_MOUNT_T_EMPTY_PATH 0x00000040
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

/// Clones the mount tree at `path` relative to `dirfd` (recursively), makes the clone
/// `noexec,nosuid,nodev` and moves it onto the same place. Returns the clone's descriptor (its
/// root is the directory), or -1 with `*failed_step` and errno set. Async-signal-safe.
static int csb_mount_noexec_over(int dirfd, const char *path, int empty_path, int *failed_step) {
    int tree = (int)syscall(
        SYS_open_tree, dirfd, path, OPEN_TREE_CLONE | AT_RECURSIVE | O_CLOEXEC | (empty_path ? AT_EMPTY_PATH : 0));
    if (tree < 0) {
        *failed_step = CSB_SPAWN_STEP_OPEN_TREE;
        return -1;
    }
    struct csb_mount_attr attributes = {
        .attr_set = CSB_MOUNT_ATTR_NOEXEC | CSB_MOUNT_ATTR_NOSUID | CSB_MOUNT_ATTR_NODEV,
    };
    unsigned int flags = MOVE_MOUNT_F_EMPTY_PATH | (empty_path ? MOVE_MOUNT_T_EMPTY_PATH : 0);
    int step = 0;
    if (syscall(SYS_mount_setattr, tree, "", AT_EMPTY_PATH | AT_RECURSIVE, &attributes, sizeof(attributes)) != 0) {
        step = CSB_SPAWN_STEP_MOUNT_SETATTR;
    } else if (syscall(SYS_move_mount, tree, "", dirfd, path, flags) != 0) {
        step = CSB_SPAWN_STEP_MOVE_MOUNT;
    }
    if (step != 0) {
        int saved = errno;
        close(tree);
        errno = saved;
        *failed_step = step;
        return -1;
    }
    return tree;
}

/// Mounts `directory` `noexec,nosuid,nodev` in the namespace made: its path opened here (in the
/// namespace; the last component not followed) must be the directory the parent verified (device
/// and inode), else ESTALE — nothing put in its place between the parent's check and this is
/// mounted over. Async-signal-safe.
static int csb_mount_noexec_directory(const csb_noexec_directory_t *directory, int *failed_step) {
    int fd = open(directory->path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        *failed_step = CSB_SPAWN_STEP_NOEXEC_DIRECTORY;
        return -1;
    }
    struct stat info;
    int result = -1;
    if (fstat(fd, &info) != 0) {
        *failed_step = CSB_SPAWN_STEP_NOEXEC_DIRECTORY;
    } else if (major(info.st_dev) != directory->dev_major || minor(info.st_dev) != directory->dev_minor
               || (uint64_t)info.st_ino != directory->inode) {
        *failed_step = CSB_SPAWN_STEP_NOEXEC_DIRECTORY;
        errno = ESTALE;
    } else {
        int tree = csb_mount_noexec_over(fd, "", 1, failed_step);
        if (tree >= 0) {
            close(tree);
            result = 0;
        }
    }
    int saved = errno;
    close(fd);
    errno = saved;
    return result;
}

/// Makes the directory `directory_fd` (and everything mounted beneath it) `noexec,nosuid,nodev`
/// for this process and what it executes, and makes it the working directory: nothing in it can
/// be executed, nor mapped executable (the loader's `mmap(PROT_EXEC)`, which Landlock does not
/// mediate). Each of the `count` `others` (the App Group containers the app may write) is made
/// so too, before it.
///
/// A private mount namespace (`csb_unshare_mounts`) whose mounts are all made private first
/// (nothing done here propagates to the host's namespace); then a recursive clone of the
/// directory (`open_tree(OPEN_TREE_CLONE | AT_RECURSIVE)`), given the three attributes
/// (`mount_setattr`) and moved onto the directory itself (`move_mount`). The directory is reached
/// through the working directory, set from `directory_fd` before the namespace is made (which then
/// refers to the namespace's copy of the same mount): no host path is resolved, and a descriptor
/// of the old namespace's mount would be refused (EINVAL) by `open_tree` and `move_mount`. The new
/// working directory is the new mount's root, so `./prog` is looked up through it. The `others`
/// cannot be reached so (one working directory): each is opened again by its path in the new
/// namespace and must be the directory the parent verified (`csb_mount_noexec_directory`).
/// Async-signal-safe; on failure sets `*failed_step` and errno.
int csb_private_noexec_mount(
    int directory_fd, const csb_noexec_directory_t *others, int count, int *failed_step) {
    if (fchdir(directory_fd) != 0) {
        *failed_step = CSB_SPAWN_STEP_DIRECTORY;
        return -1;
    }
    if (csb_unshare_mounts(failed_step) != 0) return -1;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        *failed_step = CSB_SPAWN_STEP_MOUNT_PRIVATE;
        return -1;
    }
    for (int index = 0; index < count; index++) {
        if (csb_mount_noexec_directory(&others[index], failed_step) != 0) return -1;
    }
    int tree = csb_mount_noexec_over(AT_FDCWD, ".", 0, failed_step);
    if (tree < 0) return -1;
    int failed = fchdir(tree) != 0;
    int saved = errno;
    close(tree);
    errno = saved;
    if (failed) {
        *failed_step = CSB_SPAWN_STEP_DIRECTORY;
        return -1;
    }
    return 0;
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
        if (csb_private_noexec_mount(directory_fd, NULL, 0, &step) != 0) csb_child_fail(report[1], step);
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
