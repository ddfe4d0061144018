#define _GNU_SOURCE
#include "CSandboxSQLite.h"

#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

const char *const CSB_SQLITE_BENEATH_VFS = "sandbox-beneath";

static const char proc_fd_prefix[] = "/proc/self/fd/";
#define PROC_FD_PREFIX_LENGTH (sizeof(proc_fd_prefix) - 1)

static sqlite3_vfs beneath_vfs;
static sqlite3_vfs *unix_vfs;
static int (*original_open)(const char *, int, int);
static int install_result = SQLITE_ERROR;
static pthread_once_t install_once = PTHREAD_ONCE_INIT;

/// Splits `/proc/self/fd/<N>/<name>` (N without sign or leading zero; name one component, not
/// `.` or `..`) into N and name. Returns 0 for any other path.
static int split_beneath(const char *path, int *directory, const char **name) {
    if (strncmp(path, proc_fd_prefix, PROC_FD_PREFIX_LENGTH) != 0) return 0;
    const char *p = path + PROC_FD_PREFIX_LENGTH;
    if (*p < '0' || *p > '9' || (*p == '0' && p[1] != '/')) return 0;
    long number = 0;
    for (; *p >= '0' && *p <= '9'; p++) {
        number = number * 10 + (*p - '0');
        if (number > INT_MAX) return 0;
    }
    if (*p != '/') return 0;
    p++;
    if (*p == '\0' || strchr(p, '/') != NULL || strcmp(p, ".") == 0 || strcmp(p, "..") == 0) return 0;
    *directory = (int)number;
    *name = p;
    return 1;
}

/// The unix VFS's `open`: beneath the descriptor, never following the last name.
static int beneath_open(const char *path, int flags, int mode) {
    int directory;
    const char *name;
    if (split_beneath(path, &directory, &name)) {
        return openat(directory, name, flags | O_NOFOLLOW | O_CLOEXEC, (mode_t)mode);
    }
    return original_open(path, flags, mode);
}

/// `/proc/self/fd/…` as it is; anything else as the unix VFS canonicalizes it.
static int beneath_full_pathname(sqlite3_vfs *vfs, const char *path, int size, char *out) {
    (void)vfs;
    if (strncmp(path, proc_fd_prefix, PROC_FD_PREFIX_LENGTH) == 0) {
        size_t length = strlen(path);
        if (size <= 0 || length >= (size_t)size) return SQLITE_CANTOPEN;
        memcpy(out, path, length + 1);
        return SQLITE_OK;
    }
    return unix_vfs->xFullPathname(unix_vfs, path, size, out);
}

static void install(void) {
    if (sqlite3_initialize() != SQLITE_OK) return;
    unix_vfs = sqlite3_vfs_find("unix");
    if (unix_vfs == NULL || unix_vfs->iVersion < 3 || unix_vfs->xGetSystemCall == NULL
        || unix_vfs->xSetSystemCall == NULL || unix_vfs->xFullPathname == NULL) {
        return;
    }
    sqlite3_syscall_ptr current = unix_vfs->xGetSystemCall(unix_vfs, "open");
    if (current == NULL) return;
    original_open = (int (*)(const char *, int, int))current;
    // Published before beneath_open can be called from another thread's connection.
    __atomic_thread_fence(__ATOMIC_RELEASE);
    int result = unix_vfs->xSetSystemCall(unix_vfs, "open", (sqlite3_syscall_ptr)beneath_open);
    if (result != SQLITE_OK) {
        install_result = result;
        return;
    }
    beneath_vfs = *unix_vfs;
    beneath_vfs.pNext = NULL;
    beneath_vfs.zName = CSB_SQLITE_BENEATH_VFS;
    beneath_vfs.xFullPathname = beneath_full_pathname;
    install_result = sqlite3_vfs_register(&beneath_vfs, 0);
}

int csb_sqlite_install_beneath_vfs(void) {
    pthread_once(&install_once, install);
    return install_result;
}

int csb_sqlite_opened_beneath(struct sqlite3 *db, int directory) {
    char *vfs = NULL;
    if (sqlite3_file_control(db, "main", SQLITE_FCNTL_VFSNAME, &vfs) != SQLITE_OK || vfs == NULL) return 0;
    int same = strcmp(vfs, CSB_SQLITE_BENEATH_VFS) == 0;
    sqlite3_free(vfs);
    char prefix[PROC_FD_PREFIX_LENGTH + 16];
    int length = snprintf(prefix, sizeof(prefix), "%s%d/", proc_fd_prefix, directory);
    const char *file = sqlite3_db_filename(db, "main");
    int name_directory;
    const char *name;
    return same && length > 0 && file != NULL && strncmp(file, prefix, (size_t)length) == 0
        && split_beneath(file, &name_directory, &name) && name_directory == directory;
}
