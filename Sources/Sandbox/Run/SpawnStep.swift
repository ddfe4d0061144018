import CSandboxShims

/// The steps of a confined launch's child (`csb_confined_spawn`), as the system call each makes:
/// what an error names when the child reports a step and its errno.
enum SpawnStep {
    private static let calls: [CInt: String] = [
        CInt(CSB_SPAWN_STEP_FORK): "fork", CInt(CSB_SPAWN_STEP_SIGNALS): "sigprocmask",
        CInt(CSB_SPAWN_STEP_STDIO): "dup2", CInt(CSB_SPAWN_STEP_PASSED): "dup2",
        CInt(CSB_SPAWN_STEP_SECCOMP): "prctl(PR_SET_SECCOMP)",
        CInt(CSB_SPAWN_STEP_CAPABILITIES): "prctl(PR_CAPBSET_DROP)",
        CInt(CSB_SPAWN_STEP_SESSION): "setsid", CInt(CSB_SPAWN_STEP_NO_NEW_PRIVS): "prctl(PR_SET_NO_NEW_PRIVS)",
        CInt(CSB_SPAWN_STEP_LIMITS): "setrlimit", CInt(CSB_SPAWN_STEP_DIRECTORY): "fchdir",
        CInt(CSB_SPAWN_STEP_RESTRICT): "landlock_restrict_self", CInt(CSB_SPAWN_STEP_EXEC): "execve",
        CInt(CSB_SPAWN_STEP_UNSHARE): "unshare", CInt(CSB_SPAWN_STEP_ID_MAPS): "write(/proc/self/uid_map)",
        CInt(CSB_SPAWN_STEP_MOUNT_PRIVATE): "mount(MS_PRIVATE)", CInt(CSB_SPAWN_STEP_OPEN_TREE): "open_tree",
        CInt(CSB_SPAWN_STEP_MOUNT_SETATTR): "mount_setattr", CInt(CSB_SPAWN_STEP_MOVE_MOUNT): "move_mount",
        CInt(CSB_SPAWN_STEP_MDWE): "prctl(PR_SET_MDWE)", CInt(CSB_SPAWN_STEP_NOEXEC_DIRECTORY): "open",
    ]

    /// The system call of `step`; `spawn` for a step this table does not know.
    static func systemCall(_ step: CInt) -> String { calls[step] ?? "spawn" }
}
