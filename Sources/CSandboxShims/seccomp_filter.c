// The seccomp filter of a confined launch (`sandbox run`): what Landlock does not mediate.
#define _GNU_SOURCE
#include "confined_child.h"

#include <errno.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

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
int csb_install_seccomp_filter(int deny_network) {
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
