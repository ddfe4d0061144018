import CSandboxShims
import Glibc
import SandboxCore
import SystemPackage

/// A Landlock ruleset being built: which rights it handles, and the rules that grant them beneath
/// paths. ``ConfinedLaunch`` hands it to the child, which restricts itself to it just before
/// `execve`.
///
/// Rights are trimmed to what the ABI handles, and a rule on a file keeps only
/// ``FileSystemAccess/fileRights`` (the kernel refuses the others with `EINVAL`).
public final class LandlockRuleset: Sendable {
    /// The ruleset's descriptor (close-on-exec).
    let descriptor: CInt
    /// The ABI the ruleset was made for.
    public let abi: LandlockABI
    /// The file-system rights it handles: denied unless a rule grants them.
    public let handledFileSystem: FileSystemAccess
    /// The network rights it handles.
    public let handledNetwork: NetworkAccess
    /// The scopes it restricts.
    public let scopes: LandlockScope

    /// Makes a ruleset handling `fileSystem`, `network` and `scopes`, less what `abi` lacks.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/unsupported`` when the ABI is 0 or the kernel
    ///   refuses the ruleset.
    public init(
        abi: LandlockABI,
        handling fileSystem: FileSystemAccess,
        network: NetworkAccess = [],
        scopes: LandlockScope = []
    ) throws(SandboxError) {
        guard abi.version >= 1 else {
            throw SandboxError(.unsupported, "Cannot confine: \(abi).")
        }
        let handledFileSystem = fileSystem.intersection(.handled(byABI: abi.version))
        let handledNetwork = network.intersection(.handled(byABI: abi.version))
        let scopes = scopes.intersection(.handled(byABI: abi.version))
        let fd = csb_landlock_create_ruleset(handledFileSystem.rawValue, handledNetwork.rawValue, scopes.rawValue)
        guard fd >= 0 else {
            throw SandboxError(
                .unsupported, "The kernel refused a Landlock ruleset (\(abi)).",
                cause: SystemCallFailure(systemCall: "landlock_create_ruleset", errno: Errno(rawValue: errno)))
        }
        self.descriptor = fd
        self.abi = abi
        self.handledFileSystem = handledFileSystem
        self.handledNetwork = handledNetwork
        self.scopes = scopes
    }

    deinit {
        Glibc.close(descriptor)
    }

    /// Grants `access` beneath the file or folder `descriptor` names (preferably `O_PATH`).
    ///
    /// - Parameters:
    ///   - access: the rights to grant.
    ///   - descriptor: the file or folder; the caller keeps it and may close it afterwards.
    ///   - label: what to call it in errors (its host path).
    /// - Returns: the rights granted, after trimming; empty when none were left (no rule added).
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` when the kernel refuses the rule.
    @discardableResult
    public func allow(
        _ access: FileSystemAccess, beneath descriptor: CInt, label: String
    ) throws(SandboxError)
        -> FileSystemAccess
    {
        var info = stat()
        _ = try syscall("fstat", path: label) { fstat(descriptor, &info) }
        var granted = access.intersection(handledFileSystem)
        if info.st_mode & S_IFMT != S_IFDIR { granted.formIntersection(.fileRights) }
        guard !granted.isEmpty else { return [] }
        _ = try syscall("landlock_add_rule", path: label) {
            csb_landlock_add_path_rule(self.descriptor, descriptor, granted.rawValue)
        }
        return granted
    }

    /// Grants `access` beneath the host path `path`, opened with `O_PATH` (symbolic links
    /// followed: the rule applies to what they lead to).
    ///
    /// - Parameters:
    ///   - access: the rights to grant.
    ///   - path: a host path, absolute or relative to the working directory.
    ///   - ifPresent: whether a missing path is skipped (`nil` returned) rather than an error.
    /// - Returns: the rights granted, or `nil` when the path is missing and `ifPresent`.
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` and the errors of
    ///   ``allow(_:beneath:label:)``.
    @discardableResult
    public func allow(
        _ access: FileSystemAccess, atHostPath path: String, ifPresent: Bool = false
    )
        throws(SandboxError) -> FileSystemAccess?
    {
        let fd = Glibc.open(path, CSB_O_PATH | CSB_O_CLOEXEC)
        guard fd >= 0 else {
            if ifPresent && (errno == ENOENT || errno == ENOTDIR) { return nil }
            throw .systemCall("open", errno: Errno(rawValue: errno), path: path)
        }
        defer { Glibc.close(fd) }
        return try allow(access, beneath: fd, label: path)
    }

    /// Allows TCP `access` on `port` (rules for ports; the ruleset must handle network rights).
    ///
    /// - Parameters:
    ///   - access: the TCP rights to grant.
    ///   - port: the port they apply to.
    /// - Throws: ``/SandboxCore/SandboxError/Code/invalidArgument`` when the kernel refuses the rule.
    public func allow(_ access: NetworkAccess, port: UInt16) throws(SandboxError) {
        let granted = access.intersection(handledNetwork)
        guard !granted.isEmpty else { return }
        _ = try syscall("landlock_add_rule", path: "TCP port \(port)") {
            csb_landlock_add_net_rule(self.descriptor, UInt64(port), granted.rawValue)
        }
    }

    private func syscall(_ name: String, path: String, _ call: () -> CInt) throws(SandboxError) -> CInt {
        let result = call()
        guard result >= 0 else { throw .systemCall(name, errno: Errno(rawValue: errno), path: path) }
        return result
    }
}
