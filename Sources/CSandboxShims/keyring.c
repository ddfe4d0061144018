// The Linux key retention service (keyrings(7)) through raw system calls — no libkeyutils — and
// the fs-verity ioctl. Protection keeps the unwrapped class keys of an unlocked device in the
// user keyring: every process of the user sees them, none of them is on disk.
#define _GNU_SOURCE
#include "CSandboxShims.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <linux/fsverity.h>
#include <linux/keyctl.h>

int32_t csb_keyring_add(const char *description, const void *payload, size_t length) {
    long id = syscall(SYS_add_key, "user", description, payload, length, KEY_SPEC_USER_KEYRING);
    if (id < 0) return -1;
    // Possessor and user: view, read, write, search, link, set attributes (not only the possessor,
    // so that a process whose session keyring does not link the user keyring still reads it).
    if (syscall(SYS_keyctl, KEYCTL_SETPERM, id, 0x3f3f0000) < 0) {
        int saved = errno;
        syscall(SYS_keyctl, KEYCTL_UNLINK, id, KEY_SPEC_USER_KEYRING);
        errno = saved;
        return -1;
    }
    return (int32_t)id;
}

int32_t csb_keyring_search(const char *description) {
    long id = syscall(SYS_keyctl, KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, "user", description, 0);
    return id < 0 ? -1 : (int32_t)id;
}

ssize_t csb_keyring_read(int32_t key, void *buffer, size_t length) {
    return (ssize_t)syscall(SYS_keyctl, KEYCTL_READ, key, buffer, length);
}

int csb_keyring_unlink(int32_t key) {
    return (int)syscall(SYS_keyctl, KEYCTL_UNLINK, key, KEY_SPEC_USER_KEYRING);
}

int csb_keyring_probe(void) {
    long id = syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_USER_KEYRING, 0);
    return id < 0 ? -1 : 0;
}

int csb_enable_verity(int fd) {
    struct fsverity_enable_arg arg;
    memset(&arg, 0, sizeof arg);
    arg.version = 1;
    arg.hash_algorithm = FS_VERITY_HASH_ALG_SHA256;
    arg.block_size = 4096;
    return ioctl(fd, FS_IOC_ENABLE_VERITY, &arg);
}
