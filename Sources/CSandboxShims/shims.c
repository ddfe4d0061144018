#define _GNU_SOURCE
#include "CSandboxShims.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/xattr.h>

#ifdef __linux__
#include <linux/fs.h>
#include <linux/openat2.h>
#endif

const int CSB_O_PATH = O_PATH;
const int CSB_O_TMPFILE = O_TMPFILE;
const int CSB_O_DIRECTORY = O_DIRECTORY;
const int CSB_O_NOFOLLOW = O_NOFOLLOW;
const int CSB_O_CLOEXEC = O_CLOEXEC;
const int CSB_AT_EMPTY_PATH = AT_EMPTY_PATH;
const int CSB_AT_SYMLINK_NOFOLLOW = AT_SYMLINK_NOFOLLOW;
const int CSB_AT_SYMLINK_FOLLOW = AT_SYMLINK_FOLLOW;
const int CSB_AT_REMOVEDIR = AT_REMOVEDIR;
const int CSB_AT_FDCWD = AT_FDCWD;
const unsigned int CSB_RENAME_NOREPLACE = RENAME_NOREPLACE;
const unsigned int CSB_RENAME_EXCHANGE = RENAME_EXCHANGE;
const unsigned int CSB_STATX_BASIC_STATS = STATX_BASIC_STATS;
const unsigned int CSB_STATX_BTIME = STATX_BTIME;
const unsigned char CSB_DT_UNKNOWN = DT_UNKNOWN;
const unsigned char CSB_DT_DIR = DT_DIR;
const unsigned char CSB_DT_REG = DT_REG;
const unsigned char CSB_DT_LNK = DT_LNK;
const long CSB_UTIME_OMIT = UTIME_OMIT;

int csb_openat2_beneath(int dirfd, const char *path, int flags, unsigned int mode, int no_symlinks) {
#if defined(__linux__) && defined(SYS_openat2)
    struct open_how how;
    memset(&how, 0, sizeof(how));
    how.flags = (unsigned long long)flags;
    // O_TMPFILE includes O_DIRECTORY's bit: test for all of it, or every directory open would pass a mode.
    how.mode = ((flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE) ? mode : 0;
    how.resolve = RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS | (no_symlinks ? RESOLVE_NO_SYMLINKS : 0);
    return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof(how));
#else
    errno = ENOSYS;
    return -1;
#endif
}

int csb_statx(int dirfd, const char *path, int flags, unsigned int mask, csb_statx_t *out) {
    struct statx stx;
    if (statx(dirfd, path, flags, mask, &stx) != 0) return -1;
    out->mask = stx.stx_mask;
    out->mode = stx.stx_mode;
    out->uid = stx.stx_uid;
    out->gid = stx.stx_gid;
    out->nlink = stx.stx_nlink;
    out->ino = stx.stx_ino;
    out->size = stx.stx_size;
    out->blocks = stx.stx_blocks;
    out->dev_major = stx.stx_dev_major;
    out->dev_minor = stx.stx_dev_minor;
    out->atime_sec = stx.stx_atime.tv_sec; out->atime_nsec = stx.stx_atime.tv_nsec;
    out->btime_sec = stx.stx_btime.tv_sec; out->btime_nsec = stx.stx_btime.tv_nsec;
    out->ctime_sec = stx.stx_ctime.tv_sec; out->ctime_nsec = stx.stx_ctime.tv_nsec;
    out->mtime_sec = stx.stx_mtime.tv_sec; out->mtime_nsec = stx.stx_mtime.tv_nsec;
    return 0;
}

int csb_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags) {
    return renameat2(olddirfd, oldpath, newdirfd, newpath, flags);
}

ssize_t csb_pread_nowait(int fd, void *buffer, size_t count, off_t offset) {
#ifdef RWF_NOWAIT
    struct iovec vector = { .iov_base = buffer, .iov_len = count };
    return preadv2(fd, &vector, 1, offset, RWF_NOWAIT);
#else
    (void)fd; (void)buffer; (void)count; (void)offset;
    errno = EOPNOTSUPP;
    return -1;
#endif
}

int csb_current_cpu(void) {
    return sched_getcpu();
}

ssize_t csb_copy_file_range(int fd_in, int fd_out, size_t len) {
    return copy_file_range(fd_in, NULL, fd_out, NULL, len, 0);
}

int csb_ficlone(int dest_fd, int src_fd) {
#ifdef FICLONE
    return ioctl(dest_fd, FICLONE, src_fd);
#else
    errno = EOPNOTSUPP;
    return -1;
#endif
}

struct csb_linux_dirent64 {
    uint64_t d_ino;
    int64_t d_off;
    unsigned short d_reclen;
    unsigned char d_type;
    char d_name[];
};

ssize_t csb_getdents64(int fd, void *buffer, size_t size) {
    return syscall(SYS_getdents64, fd, buffer, size);
}

ssize_t csb_dirent_next(const void *buffer, ssize_t used, ssize_t offset,
                        const char **name, unsigned char *type, uint64_t *ino) {
    if (offset >= used) return -1;
    const struct csb_linux_dirent64 *entry =
        (const struct csb_linux_dirent64 *)((const char *)buffer + offset);
    *name = entry->d_name;
    *type = entry->d_type;
    *ino = entry->d_ino;
    return offset + entry->d_reclen;
}

int csb_fgetxattr(int fd, const char *name, void *value, size_t size) {
    return (int)fgetxattr(fd, name, value, size);
}
int csb_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags) {
    return fsetxattr(fd, name, value, size, flags);
}
int csb_fremovexattr(int fd, const char *name) { return fremovexattr(fd, name); }
ssize_t csb_flistxattr(int fd, char *list, size_t size) { return flistxattr(fd, list, size); }

// listxattrat(2) and getxattrat(2) came with Linux 6.13; headers before it lack their numbers,
// which are the same on every architecture the package builds for (the table shared since 424).
#if !defined(SYS_getxattrat) && (defined(__x86_64__) || defined(__aarch64__))
#define SYS_getxattrat 464
#endif
#if !defined(SYS_listxattrat) && (defined(__x86_64__) || defined(__aarch64__))
#define SYS_listxattrat 465
#endif

/// `struct xattr_args` of <linux/xattr.h> (6.13), which older headers lack.
struct csb_xattr_args {
    uint64_t value __attribute__((aligned(8)));
    uint32_t size;
    uint32_t flags;
};

ssize_t csb_listxattrat(int dirfd, const char *path, int at_flags, char *list, size_t size) {
#ifdef SYS_listxattrat
    return (ssize_t)syscall(SYS_listxattrat, dirfd, path, (unsigned int)at_flags, list, size);
#else
    errno = ENOSYS;
    return -1;
#endif
}

ssize_t csb_getxattrat(int dirfd, const char *path, int at_flags, const char *name, void *value, size_t size) {
#ifdef SYS_getxattrat
    struct csb_xattr_args args = {.value = (uint64_t)(uintptr_t)value, .size = (uint32_t)size, .flags = 0};
    if (size > UINT32_MAX) args.size = UINT32_MAX;
    return (ssize_t)syscall(SYS_getxattrat, dirfd, path, (unsigned int)at_flags, name, &args, sizeof(args));
#else
    errno = ENOSYS;
    return -1;
#endif
}

int csb_fallocate(int fd, int mode, int64_t offset, int64_t len) {
    return fallocate(fd, mode, (off_t)offset, (off_t)len);
}
int csb_syncfs(int fd) { return syncfs(fd); }

void csb_limit_malloc_arenas(int arenas) {
    mallopt(M_ARENA_MAX, arenas);
}

#include <malloc.h>

int csb_trim_heap(void) { return malloc_trim(0); }
