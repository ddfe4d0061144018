// What the child of a confined launch (landlock.c) shares with the files that build its parts.
// Not exported to Swift. Everything here is async-signal-safe unless said otherwise.
#ifndef CSB_CONFINED_CHILD_H
#define CSB_CONFINED_CHILD_H

#include "CSandboxShims.h"

/// Reports the failed step and errno to the parent and ends the child.
void csb_child_fail(int report_fd, int step);

/// Reads a child's report (blocking): 1 with `result` filled when it sent a step and errno, 0 when
/// the pipe closed without one. For the parent.
int csb_read_report(int fd, int result[2]);

/// Installs the seccomp filter of every confined launch (seccomp_filter.c).
int csb_install_seccomp_filter(int deny_network);

/// Makes `directory_fd` (and each of the `count` `others`) `noexec,nosuid,nodev` in a private mount
/// namespace, and `directory_fd` the working directory (private_mounts.c). On failure sets
/// `*failed_step` and errno.
int csb_private_noexec_mount(
    int directory_fd, const csb_noexec_directory_t *others, int count, int *failed_step);

#endif
