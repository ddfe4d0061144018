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

/// `sched_getcpu(3)`: the CPU the calling thread runs on now (it may move right after), or -1.
int csb_current_cpu(void);

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
/// `listxattrat(2)` (Linux 6.13): `flistxattr` of `path` beneath `dirfd` without opening it
/// (`at_flags`: `AT_SYMLINK_NOFOLLOW`, `AT_EMPTY_PATH`). -1 with errno `ENOSYS` where the kernel
/// (or the architecture's headers) lacks it.
ssize_t csb_listxattrat(int dirfd, const char *path, int at_flags, char *list, size_t size);
/// `getxattrat(2)` (Linux 6.13): `fgetxattr` of `path` beneath `dirfd`, as `csb_listxattrat`.
ssize_t csb_getxattrat(int dirfd, const char *path, int at_flags, const char *name, void *value, size_t size);

int csb_fallocate(int fd, int mode, int64_t offset, int64_t len);
int csb_syncfs(int fd);

/// `mallopt(M_ARENA_MAX, arenas)`: how many heaps glibc's allocator may keep, one per thread
/// that allocates under contention by default (malloc.h is not in the Glibc module).
void csb_limit_malloc_arenas(int arenas);

// MARK: keyring (keyring.c)

/// `add_key("user", description, payload)` into the user keyring (`KEY_SPEC_USER_KEYRING`),
/// replacing a key of that description, readable by every process of the user. Returns the key's
/// serial number, or -1 with errno.
int32_t csb_keyring_add(const char *description, const void *payload, size_t length);
/// The serial number of the user key `description` in the user keyring, or -1 with errno
/// (`ENOKEY`: there is none).
int32_t csb_keyring_search(const char *description);
/// `keyctl(KEYCTL_READ)`: copies up to `length` bytes of the key's payload, returns its full size
/// or -1 with errno.
ssize_t csb_keyring_read(int32_t key, void *buffer, size_t length);
/// Removes the key from the user keyring; 0 or -1 with errno.
int csb_keyring_unlink(int32_t key);
/// 0 when the kernel has a user keyring for this process, -1 with errno (`ENOSYS`) otherwise.
int csb_keyring_probe(void);
/// `FS_IOC_ENABLE_VERITY` with SHA-256 and 4 KiB blocks on a file opened read-only; 0 or -1 with
/// errno (`EOPNOTSUPP`/`ENOTTY`: the file system has no verity).
int csb_enable_verity(int fd);

// MARK: - Landlock and confined launches (landlock.c)

/// The highest Landlock ABI the kernel offers, or -1 with errno (`ENOSYS`: not built in;
/// `EOPNOTSUPP`: built in but disabled at boot).
int csb_landlock_abi_version(void);

/// `landlock_create_ruleset(2)`: a ruleset handling these file-system and network rights and
/// these scopes (`handled_net` needs ABI 4, `scoped` ABI 6). Returns the ruleset's descriptor
/// (close-on-exec) or -1 and errno.
int csb_landlock_create_ruleset(uint64_t handled_fs, uint64_t handled_net, uint64_t scoped);

/// `landlock_add_rule(2)` of a `LANDLOCK_RULE_PATH_BENEATH` rule: `allowed_access` beneath the
/// file or directory `parent_fd` (preferably `O_PATH`) names.
int csb_landlock_add_path_rule(int ruleset_fd, int parent_fd, uint64_t allowed_access);

/// `landlock_add_rule(2)` of a `LANDLOCK_RULE_NET_PORT` rule (ABI 4).
int csb_landlock_add_net_rule(int ruleset_fd, uint64_t port, uint64_t allowed_access);

/// `landlock_restrict_self(2)`: confines the calling thread (and what it executes) to the ruleset.
int csb_landlock_restrict_self(int ruleset_fd);

/// One resource limit for the child of `csb_confined_spawn`.
typedef struct {
    int resource;
    uint64_t soft;
    uint64_t hard;
} csb_rlimit_t;

/// A directory mounted `noexec,nosuid,nodev` beside the working directory in a confined launch's
/// private mount namespace (an App Group container): its absolute path, opened again in the
/// namespace, and the identity it must have there (the directory the parent verified).
typedef struct {
    const char *path;     ///< absolute; its last component is not followed
    uint32_t dev_major;   ///< the device (statx's dev_major, dev_minor) and inode it must be
    uint32_t dev_minor;
    uint64_t inode;
} csb_noexec_directory_t;

/// What `csb_confined_spawn` starts.
typedef struct {
    const char *path;            ///< the executable; no `PATH` search
    char *const *argv;           ///< NULL-terminated
    char *const *envp;           ///< NULL-terminated
    int directory_fd;            ///< the working directory (`fchdir`), or -1 to keep the parent's
    int stdio_fds[3];            ///< descriptors for the child's stdin, stdout, stderr; -1 keeps the parent's
    int passed_fd;               ///< a descriptor the program gets as 3 (kept across execve), or -1 for none
    int held_fd;                 ///< a descriptor the program gets as 4 (kept across execve), or -1 for none
    int ruleset_fd;              ///< the Landlock ruleset to restrict to, or -1 for none
    int new_session;             ///< whether to call setsid()
    int deny_network_sockets;    ///< whether the seccomp filter also refuses socket() of every family (not only AF_UNIX)
    int private_mounts;          ///< whether directory_fd is remounted noexec,nosuid,nodev in a private mount namespace
    const csb_noexec_directory_t *noexec_directories;  ///< with private_mounts, remounted so too (before directory_fd)
    int noexec_directory_count;
    int refuse_exec_gain;        ///< whether to set PR_SET_MDWE(PR_MDWE_REFUSE_EXEC_GAIN): no memory both written and executed
    int limit_capabilities;      ///< whether to drop from the bounding set every capability not in kept_capabilities
    uint64_t kept_capabilities;  ///< bit N: keep capability N
    const csb_rlimit_t *limits;  ///< set with setrlimit() in the child
    int limit_count;
} csb_confined_spawn_t;

/// The steps of the child of `csb_confined_spawn`, reported with errno when one fails.
enum {
    CSB_SPAWN_STEP_FORK = 1,
    CSB_SPAWN_STEP_SIGNALS = 2,
    CSB_SPAWN_STEP_STDIO = 9,
    CSB_SPAWN_STEP_SECCOMP = 10,
    CSB_SPAWN_STEP_CAPABILITIES = 11,
    CSB_SPAWN_STEP_SESSION = 3,
    CSB_SPAWN_STEP_NO_NEW_PRIVS = 4,
    CSB_SPAWN_STEP_LIMITS = 5,
    CSB_SPAWN_STEP_DIRECTORY = 6,
    CSB_SPAWN_STEP_RESTRICT = 7,
    CSB_SPAWN_STEP_EXEC = 8,
    CSB_SPAWN_STEP_PASSED = 12,
    CSB_SPAWN_STEP_UNSHARE = 13,
    CSB_SPAWN_STEP_ID_MAPS = 14,
    CSB_SPAWN_STEP_MOUNT_PRIVATE = 15,
    CSB_SPAWN_STEP_OPEN_TREE = 16,
    CSB_SPAWN_STEP_MOUNT_SETATTR = 17,
    CSB_SPAWN_STEP_MOVE_MOUNT = 18,
    CSB_SPAWN_STEP_MDWE = 19,
    CSB_SPAWN_STEP_NOEXEC_DIRECTORY = 20,
};

/// Forks; the child resets its signal mask and dispositions, puts `stdio_fds` in place (and
/// `passed_fd` as 3, `held_fd` as 4), marks every other descriptor above 2 close-on-exec, starts a new session,
/// sets `PR_SET_NO_NEW_PRIVS`, changes directory (into a private `noexec` mount of it with
/// `private_mounts`, which mounts each of `noexec_directories` `noexec` too), narrows the capability bounding set, sets `PR_SET_MDWE` (with
/// `refuse_exec_gain`), installs its seccomp filter (always: no `memfd_create`, `memfd_secret`,
/// `shmat(SHM_EXEC)`, shared `mmap(PROT_EXEC)`, `ptrace`, `io_uring_setup`, `socket(AF_UNIX)`; with
/// `deny_network_sockets`, no `socket` at all), applies the limits, restricts itself to the ruleset
/// and executes `path`. Only async-signal-safe calls run in the child. Returns the child's pid once
/// it has executed the program, or -1 with the failed step and its errno (the child is then reaped
/// already). Blocks until the child has executed or failed.
pid_t csb_confined_spawn(const csb_confined_spawn_t *spec, int *failed_step, int *failed_errno);

/// Sends `length` bytes of `bytes` on the socket `sock` with the descriptor `fd` attached
/// (SCM_RIGHTS), or none when `fd` is -1. Returns what sendmsg(2) returns (errno set).
ssize_t csb_send_with_descriptor(int sock, const void *bytes, size_t length, int fd);

/// Receives at most `capacity` bytes from the socket `sock` into `bytes`, and the one descriptor
/// attached (SCM_RIGHTS, made close-on-exec) into `*fd` (-1 when none came; any extra ones are
/// closed). Returns what recvmsg(2) returns (errno set).
ssize_t csb_receive_with_descriptor(int sock, void *bytes, size_t capacity, int *fd);

/// Whether a confined launch can make `directory_fd` `noexec` in a private mount namespace: a
/// forked child tries exactly what `private_mounts` does (its namespace ends with it, nothing
/// propagates out). Returns 0, or the errno with the failed step. Blocks until the child ends.
int csb_probe_private_mounts(int directory_fd, int *failed_step);

/// Whether the kernel has `PR_SET_MDWE` (Linux 6.3).
int csb_mdwe_supported(void);

/// Returns the heap's free memory to the system (glibc's `malloc_trim(0)`); 1 when some was.
int csb_trim_heap(void);

#endif
