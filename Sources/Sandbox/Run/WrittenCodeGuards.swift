import CSandboxShims
import Glibc
import SystemPackage

/// What keeps a confined program from executing what it wrote beyond Landlock, which refuses
/// `execve` of the container's files but mediates neither the loader's `mmap(PROT_EXEC)` of them
/// nor memory made executable. Probed at run time: a kernel, or the place the launcher runs in,
/// may lack either.
///
/// - The data container mounted `noexec,nosuid,nodev` in a private mount namespace
///   (`csb_probe_private_mounts` tries it in a forked child, exactly as the launch will).
/// - `PR_SET_MDWE` (`PR_MDWE_REFUSE_EXEC_GAIN`, Linux 6.3): no memory both writable and
///   executable, none made executable later (as iOS without the JIT entitlement).
///
/// The seccomp filter every launch installs (`memfd_create`, `shmat(SHM_EXEC)`, shared executable
/// mappings, `ptrace` refused) needs no probe: it is there from Linux 3.5.
struct WrittenCodeGuards: Sendable, Hashable {
    /// Why the container cannot be mounted `noexec` (the system call and errno), or `nil`.
    let privateMountsFailure: String?
    /// Whether the kernel has `PR_SET_MDWE`.
    let refusesExecGain: Bool

    /// Probes with the directory `directory` (an `O_PATH` descriptor of the data container).
    static func probe(directory: CInt) -> WrittenCodeGuards {
        var step: CInt = 0
        let failure = csb_probe_private_mounts(directory, &step)
        return WrittenCodeGuards(
            privateMountsFailure: failure == 0
                ? nil : "\(SpawnStep.systemCall(step)) failed: \(Errno(rawValue: failure))",
            refusesExecGain: csb_mdwe_supported() != 0)
    }

    /// What is not enforced, one sentence each; empty when both guards hold.
    var unenforced: [String] {
        var gaps: [String] = []
        if let privateMountsFailure {
            gaps.append(
                "what the app writes can still run through the loader (ld.so ./prog) or be mapped executable: its container could not be mounted noexec in a private mount namespace (\(privateMountsFailure); it needs CAP_SYS_ADMIN or unprivileged user namespaces)"
            )
        }
        if !refusesExecGain {
            gaps.append(
                "memory can be made writable and executable, so code the app wrote can run from memory: PR_SET_MDWE needs Linux 6.3"
            )
        }
        return gaps
    }
}
