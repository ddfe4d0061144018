// C wrappers for the Linux system calls and constants that Swift's Glibc module does not expose.
// The header declares only prototypes and constants: the Glibc clang module is built without
// _GNU_SOURCE, so the definitions live in shims.c, which is compiled with it.
#ifndef C_SANDBOX_SHIMS_H
#define C_SANDBOX_SHIMS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/// The fields of `struct statx` that the core reads, widened to fixed-size integers.
typedef struct {
    uint32_t mask;
    uint32_t mode;        // file type and permission bits
    uint32_t uid;
    uint32_t gid;
    uint32_t nlink;
    uint64_t ino;
    uint64_t size;
    uint64_t blocks;      // 512-byte blocks
    uint32_t dev_major;
    uint32_t dev_minor;
    int64_t atime_sec;  uint32_t atime_nsec;
    int64_t btime_sec;  uint32_t btime_nsec;
    int64_t ctime_sec;  uint32_t ctime_nsec;
    int64_t mtime_sec;  uint32_t mtime_nsec;
} csb_statx_t;

extern const int CSB_O_PATH;
extern const int CSB_O_TMPFILE;
extern const int CSB_O_DIRECTORY;
extern const int CSB_O_NOFOLLOW;
extern const int CSB_O_CLOEXEC;
extern const int CSB_AT_EMPTY_PATH;
extern const int CSB_AT_SYMLINK_NOFOLLOW;
extern const int CSB_AT_SYMLINK_FOLLOW;
extern const int CSB_AT_REMOVEDIR;
extern const int CSB_AT_FDCWD;
extern const unsigned int CSB_RENAME_NOREPLACE;
extern const unsigned int CSB_RENAME_EXCHANGE;
extern const unsigned int CSB_STATX_BASIC_STATS;
extern const unsigned int CSB_STATX_BTIME;
extern const unsigned char CSB_DT_UNKNOWN;
extern const unsigned char CSB_DT_DIR;
extern const unsigned char CSB_DT_REG;
extern const unsigned char CSB_DT_LNK;
extern const long CSB_UTIME_OMIT;

/// `openat2(2)` with `RESOLVE_BENEATH | RESOLVE_NO_MAGICLINKS`, plus `RESOLVE_NO_SYMLINKS` when
/// `no_symlinks` is non-zero. Returns the descriptor or -1 and errno (ENOSYS where the kernel lacks it).
int csb_openat2_beneath(int dirfd, const char *path, int flags, unsigned int mode, int no_symlinks);

/// `statx(2)`; fills `out` and returns 0, or returns -1 and sets errno.
int csb_statx(int dirfd, const char *path, int flags, unsigned int mask, csb_statx_t *out);

/// `renameat2(2)`.
int csb_renameat2(int olddirfd, const char *oldpath, int newdirfd, const char *newpath, unsigned int flags);

/// `preadv2(2)` of one buffer with `RWF_NOWAIT`: reads only what the page cache holds, failing with
/// `EAGAIN` instead of waiting for the disk (`EOPNOTSUPP` where the file system cannot).
ssize_t csb_pread_nowait(int fd, void *buffer, size_t count, off_t offset);

/// `copy_file_range(2)` from the current offsets.
ssize_t csb_copy_file_range(int fd_in, int fd_out, size_t len);

/// `ioctl(FICLONE)`: a reflink of the whole file, where the file system supports it.
int csb_ficlone(int dest_fd, int src_fd);

/// `getdents64(2)`: fills `buffer` with `struct linux_dirent64` records.
ssize_t csb_getdents64(int fd, void *buffer, size_t size);

/// Walks the records `csb_getdents64` produced. Returns the offset of the next record and sets the
/// out-parameters, or -1 at the end of the buffer.
ssize_t csb_dirent_next(const void *buffer, ssize_t used, ssize_t offset,
                        const char **name, unsigned char *type, uint64_t *ino);

int csb_fgetxattr(int fd, const char *name, void *value, size_t size);
int csb_fsetxattr(int fd, const char *name, const void *value, size_t size, int flags);
int csb_fremovexattr(int fd, const char *name);
ssize_t csb_flistxattr(int fd, char *list, size_t size);

int csb_fallocate(int fd, int mode, int64_t offset, int64_t len);
int csb_syncfs(int fd);

/// `mallopt(M_ARENA_MAX, arenas)`: how many heaps glibc's allocator may keep, one per thread
/// that allocates under contention by default (malloc.h is not in the Glibc module).
void csb_limit_malloc_arenas(int arenas);

#endif
