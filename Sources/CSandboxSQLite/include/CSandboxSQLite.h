// The SQLite VFS that opens a container's database beneath a directory descriptor.
//
// The header names no SQLite type (only `struct sqlite3`, incomplete): GRDB's module already
// includes <sqlite3.h>, and a second module that did would give Swift two copies of its types.
#ifndef C_SANDBOX_SQLITE_H
#define C_SANDBOX_SQLITE_H

struct sqlite3;

/// The name the VFS is registered under: `sandbox-beneath`.
extern const char *const CSB_SQLITE_BENEATH_VFS;

/// Registers the `sandbox-beneath` VFS, once per process (later calls return the first result).
///
/// It is a copy of SQLite's `unix` VFS that differs in two places, so that a database opened as
/// `/proc/self/fd/<D>/<name>` has every file (the database, `-wal`, `-shm`, `-journal`) opened
/// beneath the directory descriptor D, never through a host path and never through a symlink:
/// - `xFullPathname` returns paths under `/proc/self/fd/` as they are (the `unix` VFS resolves
///   symlinks, and `/proc/self/fd/D` is one: it would become the directory's host path again);
/// - the `open` system call of the unix VFS family (one table shared by `unix`, `unix-excl`, …)
///   opens a path of exactly the form `/proc/self/fd/<N>/<one name>` with
///   `openat(N, name, flags | O_NOFOLLOW | O_CLOEXEC, mode)`; every other path goes to the
///   original `open` unchanged (so `/proc/self/fd/D` itself, opened to fsync the directory, works).
///   (Debian's SQLite 3.40 already adds `O_NOFOLLOW` to every open of its own; the override keeps
///   that whatever the SQLite, and opens beneath the descriptor rather than through procfs.) Other
///   connections of the process that open such a path get the same, stricter, open.
///
/// The VFS is not made the default: a connection selects it with the URI parameter
/// `vfs=sandbox-beneath`.
///
/// Returns SQLITE_OK (0), or SQLite's error code when the `unix` VFS is missing or too old
/// (version 3 is needed for its system-call table).
int csb_sqlite_install_beneath_vfs(void);

/// Whether `db`'s main database was opened through the `sandbox-beneath` VFS as a file directly
/// beneath `/proc/self/fd/<directory>/`: 1 if so, 0 otherwise (including when it cannot tell).
int csb_sqlite_opened_beneath(struct sqlite3 *db, int directory);

#endif
