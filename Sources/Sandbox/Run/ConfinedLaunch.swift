import CSandboxShims
import Foundation
import Glibc
import SandboxCore
import SystemPackage

/// A program ready to start confined to an app's container: `sandbox run`.
///
/// Made from an app opened as a launch does (``SandboxHome/openApp(_:preferredLanguages:environment:)``
/// checks the bundle against its signature), then
/// ``start(standardInput:standardOutput:standardError:passing:)`` forks a child that starts a new
/// session, sets `PR_SET_NO_NEW_PRIVS`, changes to the home — mounted `noexec,nosuid,nodev` in a
/// private mount namespace, as is each App Group container granted —, narrows the capability bounding set (a root program keeps only the
/// capabilities of file work), sets `PR_SET_MDWE` (no memory both writable and executable),
/// installs a seccomp filter, applies ``limits``, restricts itself with Landlock and executes the
/// program with ``environment``.
///
/// Landlock grants (everything else is denied):
/// - the data container: read, write, create, remove, rename and link within it (no device nodes,
///   no execution);
/// - the bundle: read and execute;
/// - the container of each App Group the verified bundle lists
///   (``BundleVerification/appGroups``): read, write, create, remove, rename and link within it, as
///   the data container, and mounted `noexec,nosuid,nodev` as it is (made first if no member used
///   it yet); never a group it does not list;
/// - the system: read and execute beneath `/usr`, `/bin`, `/sbin`, `/lib`, `/lib32`, `/lib64`,
///   `/libx32`; read the files the loader, the C library and common programs read (`/etc/ld.so.*`,
///   `localtime`, `timezone`, `nsswitch.conf`, `passwd`, `group`, `locale.alias`; and, unless the
///   network is blocked, `resolv.conf`, `hosts`, `host.conf`, `gai.conf`, `services`, `protocols`,
///   `/etc/ssl/certs`); `/dev/null`, `/dev/zero`, `/dev/full` (read and write), `/dev/urandom`,
///   `/dev/random` (read); `/proc` (read: every process of the sandbox needs its own `/proc/self`);
/// - read each of ``ConfinementOptions/readablePaths``.
///
/// Signals to processes outside the sandbox are blocked (ABI 6). The seccomp filter refuses
/// `socket(AF_UNIX, …)` (`EACCES`: Landlock does not mediate `connect` on a path Unix socket, which
/// would reach `sandboxd`, the user's D-Bus, an ssh-agent; `socketpair` stays allowed), and, so that
/// the app cannot execute what it wrote, `memfd_create`, `memfd_secret`, `shmat` with `SHM_EXEC`,
/// `mmap` of shared memory with `PROT_EXEC`, `ptrace` and `io_uring_setup` (`EPERM`). With
/// ``ConfinementOptions/blocksNetwork``, TCP connect and bind (ABI 4) and abstract Unix sockets
/// outside the sandbox (ABI 6) are blocked too, and the filter refuses creating a socket of any
/// family (UDP, ICMP, raw, netlink).
///
/// The program is a live user of the app's containers (``PresenterKind/run``): from before it
/// starts until it has ended — and every process it started that kept its registration
/// descriptor — restore, update, uninstall and restart refuse, naming it (``CoordinationPolicy``).
/// The launcher registers for as long as it waits; the program holds a registration of its own
/// through a read-only descriptor it inherits as 4, so a
/// launcher killed with SIGKILL leaves the program registered until it ends.
public struct ConfinedLaunch: Sendable {
    /// The app, its bundle verified.
    public let app: OpenedApp
    /// The command: the program (as given) and its arguments.
    public let command: [String]
    /// The program to execute: the command's first word, found in `PATH` unless it holds a `/`.
    public let executable: String
    /// What is allowed beyond the container.
    public let options: ConfinementOptions
    /// The kernel's Landlock ABI.
    public let abi: LandlockABI
    /// The app's environment (``AppEnvironment``).
    public let environment: [String: String]
    /// The resource limits.
    public let limits: ResourceLimits
    /// What the kernel leaves unenforced (only with ``ConfinementOptions/bestEffort``; empty from
    /// ABI ``LandlockABI/required`` on, where mount namespaces are permitted and `PR_SET_MDWE`
    /// exists): say it to the user.
    public let unenforced: [String]
    /// The guards against executing written code this kernel gives.
    let guards: WrittenCodeGuards

    /// Prepares `command` for `app`.
    ///
    /// - Parameters:
    ///   - app: the app, opened (its bundle verified) by
    ///     ``SandboxHome/openApp(_:preferredLanguages:environment:)``.
    ///   - command: the program and its arguments.
    ///   - options: what is allowed beyond the container, and whether to run on an older ABI.
    ///   - environment: the launcher's variables: `PATH` and the locale are kept from them,
    ///     `SANDBOX_LANDLOCK_ABI` caps the ABI (``LandlockABI/current(environment:)``).
    ///   - variables: added to the app's environment as they are (e.g. the background session a
    ///     relaunch is for).
    /// - Throws: ``/SandboxCore/SandboxError/Code/unsupported`` naming the kernel and ABI when
    ///   Landlock is missing or older than ``LandlockABI/required``, or the container cannot be
    ///   mounted `noexec` in a private mount namespace, or the kernel lacks `PR_SET_MDWE`, and
    ///   `bestEffort` is off; the errors of `open(2)` on the data container (``/SandboxCore/SandboxError/Code/notFound``);
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` for an empty command;
    ///   ``/SandboxCore/SandboxError/Code/notFound`` (cause `execve`) when the program is not in `PATH`.
    public init(
        app: OpenedApp,
        command: [String],
        options: ConfinementOptions = ConfinementOptions(),
        environment: [String: String] = ProcessInfo.processInfo.environment,
        variables: [String: String] = [:]
    ) throws(SandboxError) {
        guard let name = command.first, !name.isEmpty else {
            throw SandboxError(.invalidArgument, "No command to run: give the program to launch and its arguments.")
        }
        let abi = LandlockABI.current(environment: environment)
        let home = Self.absolute(app.container.homeDirectory)
        let guards = try Self.probeGuards(home: home)
        let gaps = abi.unenforced(blockingNetwork: options.blocksNetwork) + guards.unenforced
        if !gaps.isEmpty && !options.bestEffort {
            throw SandboxError(
                .unsupported,
                "Cannot confine '\(app.container.identifier)': \(abi) does not enforce everything a confined launch promises (it needs ABI \(LandlockABI.required), Linux 6.12 or later, and mount namespaces): \(gaps.joined(separator: "; ")). Upgrade the kernel or allow mount namespaces, or pass --best-effort to run with what it enforces."
            )
        }
        let bundle = Self.absolute(app.container.hostPath(for: .bundle))
        let variables = AppEnvironment.variables(
            app: app.container.identifier, home: home, bundle: bundle, inheriting: environment
        ).merging(variables) { _, added in added }
        self.app = app
        self.command = command
        self.executable = try ExecutableSearch.resolve(name, path: variables["PATH"] ?? "")
        self.options = options
        self.abi = abi
        self.environment = variables
        self.limits = ResourceLimits(availableBytes: try app.container.root.volumeValues().availableBytes)
        self.unenforced = gaps
        self.guards = guards
    }

    /// Probes the guards against written code with the data container at `home`.
    private static func probeGuards(home: String) throws(SandboxError) -> WrittenCodeGuards {
        let fd = Glibc.open(home, CSB_O_PATH | CSB_O_DIRECTORY | CSB_O_CLOEXEC)
        guard fd >= 0 else { throw .systemCall("open", errno: Errno(rawValue: errno), path: home) }
        defer { Glibc.close(fd) }
        return WrittenCodeGuards.probe(directory: fd)
    }

    /// Starts the program, confined. Blocks only until the child has executed the program (or
    /// failed to).
    ///
    /// - Parameters:
    ///   - standardInput: the program's standard input; `nil` shares the launcher's.
    ///   - standardOutput: the program's standard output; `nil` shares the launcher's.
    ///   - standardError: the program's standard error; `nil` shares the launcher's.
    ///   - passing: a descriptor the program gets as 3, open across `execve` (a connection made
    ///     before confinement, say, to `sandboxd`); `nil` for none. What it names is the program's
    ///     to use whatever the sandbox allows: hand only what the app may have. Every other
    ///     descriptor above 2 is closed in the program.
    ///   Give descriptors above 2 (or the launcher's own 0, 1, 2 in their places); the caller
    ///   keeps them and may close them once this returns.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notADirectory`` or
    ///   ``/SandboxCore/SandboxError/Code/escapesContainer`` when the container or bundle on disk is
    ///   not the one opened; the errors of ``LandlockRuleset``; the errno of the child's failed step
    ///   mapped as usual (cause `execve` when the program could not be executed, e.g.
    ///   ``/SandboxCore/SandboxError/Code/permissionDenied`` for one outside what Landlock allows;
    ///   `unshare`, `open_tree`, `mount_setattr` or `move_mount` when the container could not be
    ///   mounted `noexec` although the probe at preparation could; `dup2` for a bad `passing`);
    ///   file-system errors registering the program in the device's coordination folder.
    public func start(
        standardInput: FileDescriptor? = nil,
        standardOutput: FileDescriptor? = nil,
        standardError: FileDescriptor? = nil,
        passing: FileDescriptor? = nil
    ) throws(SandboxError) -> AppProcess {
        let home = try openVerified(
            Self.absolute(app.container.homeDirectory), as: app.container.root, at: .root, label: "data container")
        defer { Glibc.close(home) }
        let groups = try openGroups()
        defer { for group in groups { Glibc.close(group.descriptor) } }
        let ruleset = try abi.version >= 1 ? makeRuleset(home: home, groups: groups) : nil
        let stdio = (standardInput?.rawValue ?? -1, standardOutput?.rawValue ?? -1, standardError?.rawValue ?? -1)
        var environment = self.environment
        if passing != nil { environment[AppEnvironment.daemonBrokerVariable] = "3" }
        let registration = try RunRegistration(container: app.container, command: command)
        do throws(SandboxError) {
            return try spawn(
                directory: home, groups: groups, ruleset: ruleset, stdio: stdio, passing: passing?.rawValue ?? -1,
                registration: registration, environment: environment)
        } catch {
            registration.ended()
            throw error
        }
    }

    private func makeRuleset(home: CInt, groups: [GroupDirectory]) throws(SandboxError) -> LandlockRuleset {
        var scopes: LandlockScope = [.signal]
        if options.blocksNetwork { scopes.insert(.abstractUnixSocket) }
        let ruleset = try LandlockRuleset(
            abi: abi, handling: .handled(byABI: abi.version),
            network: options.blocksNetwork ? [.bindTCP, .connectTCP] : [], scopes: scopes)
        try ruleset.allow(.container, beneath: home, label: app.container.homeDirectory)
        let container = app.container
        let bundle = try openVerified(
            Self.absolute(container.hostPath(for: .bundle)), as: container.bundleRoot,
            at: ContainerPath.root.appendingName(container.bundleName), label: "bundle")
        defer { Glibc.close(bundle) }
        try ruleset.allow(.readAndExecute, beneath: bundle, label: container.hostPath(for: .bundle))
        for group in groups { try ruleset.allow(.container, beneath: group.descriptor, label: group.path) }
        for tree in SystemAllowances.executableTrees {
            try ruleset.allow(.readAndExecute, atHostPath: tree, ifPresent: true)
        }
        var files = SystemAllowances.systemFiles
        if !options.blocksNetwork { files += SystemAllowances.networkFiles }
        for file in files { try ruleset.allow(.readOnly, atHostPath: file, ifPresent: true) }
        try ruleset.allow(.readOnly, atHostPath: SystemAllowances.proc, ifPresent: true)
        for device in SystemAllowances.devices {
            try ruleset.allow(device.access, atHostPath: device.path, ifPresent: true)
        }
        for path in options.readablePaths { try ruleset.allow(.readOnly, atHostPath: path) }
        return ruleset
    }

    /// Opens `hostPath` with `O_PATH | O_NOFOLLOW` and checks that it is the directory `path`
    /// beneath `root` (same device and inode): a rule or working directory is never given to
    /// something put in its place.
    private func openVerified(
        _ hostPath: String, as root: ConfinedRoot, at path: ContainerPath, label: String
    ) throws(SandboxError) -> CInt {
        try openVerifiedIdentity(hostPath, as: root, at: path, label: label).descriptor
    }

    /// ``openVerified(_:as:at:label:)``, with the identity it was checked to have.
    func openVerifiedIdentity(
        _ hostPath: String, as root: ConfinedRoot, at path: ContainerPath, label: String
    ) throws(SandboxError) -> (descriptor: CInt, identity: csb_statx_t) {
        let fd = Glibc.open(hostPath, CSB_O_PATH | CSB_O_DIRECTORY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
        guard fd >= 0 else { throw .systemCall("open", errno: Errno(rawValue: errno), path: hostPath) }
        var info = csb_statx_t()
        let expected = try root.attributes(at: path, followingSymlink: false)
        let found = csb_statx(fd, "", CSB_AT_EMPTY_PATH, CSB_STATX_BASIC_STATS, &info) == 0
        // FileAttributes.device is statx's major << 32 | minor.
        guard found, let expected, expected.inode == info.ino,
            expected.device == UInt64(info.dev_major) << 32 | UInt64(info.dev_minor)
        else {
            Glibc.close(fd)
            throw SandboxError(
                .escapesContainer,
                "The \(label) of '\(app.container.identifier)' at '\(hostPath)' is no longer the one that was opened (it was moved or replaced). Run the command again.",
                path: hostPath)
        }
        return (fd, info)
    }

    private func spawn(
        directory: CInt, groups: [GroupDirectory], ruleset: LandlockRuleset?, stdio: (CInt, CInt, CInt), passing: CInt,
        registration: RunRegistration, environment: [String: String]
    ) throws(SandboxError) -> AppProcess {
        let argv = ([executable] + command.dropFirst()).map { strdup($0) }
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") }
        let paths = groups.map { strdup($0.path) }
        defer { for pointer in argv + envp + paths { free(pointer) } }
        let noexec = zip(groups, paths).map { group, path in
            csb_noexec_directory_t(
                path: path, dev_major: group.identity.dev_major, dev_minor: group.identity.dev_minor,
                inode: group.identity.ino)
        }
        let limits = self.limits.entries
        var step: CInt = 0
        var failure: CInt = 0
        let pid = (argv + [nil]).withUnsafeBufferPointer { argv in
            (envp + [nil]).withUnsafeBufferPointer { envp in
                limits.withUnsafeBufferPointer { limits in
                    noexec.withUnsafeBufferPointer { noexec in
                        executable.withCString { path in
                            var spec = csb_confined_spawn_t(
                                path: path, argv: argv.baseAddress, envp: envp.baseAddress, directory_fd: directory,
                                stdio_fds: stdio, passed_fd: passing, held_fd: registration.heldDescriptor,
                                ruleset_fd: ruleset?.descriptor ?? -1,
                                new_session: 1, deny_network_sockets: options.blocksNetwork ? 1 : 0,
                                private_mounts: guards.privateMountsFailure == nil ? 1 : 0,
                                noexec_directories: noexec.baseAddress, noexec_directory_count: CInt(noexec.count),
                                refuse_exec_gain: guards.refusesExecGain ? 1 : 0,
                                limit_capabilities: 1, kept_capabilities: KeptCapabilities.mask,
                                limits: limits.baseAddress, limit_count: CInt(limits.count))
                            return csb_confined_spawn(&spec, &step, &failure)
                        }
                    }
                }
            }
        }
        withExtendedLifetime(ruleset) {}
        guard pid > 0 else { throw childFailure(step: step, errno: Errno(rawValue: failure)) }
        registration.started(pid: pid)
        do throws(SandboxError) {
            return try AppProcess(pid: pid, registration: registration)
        } catch {
            // Nothing would wait for the app: end it now rather than leave it unreaped.
            kill(-pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            throw error
        }
    }

    private func childFailure(step: CInt, errno: Errno) -> SandboxError {
        let call = SpawnStep.systemCall(step)
        var error = SandboxError.systemCall(
            call, errno: errno, path: call == "execve" ? executable : app.container.homeDirectory)
        if call == "execve" {
            error.message =
                "Cannot execute '\(executable)' in the sandbox of '\(app.container.identifier)': \(errno). The sandbox executes programs in the bundle and beneath \(SystemAllowances.executableTrees.joined(separator: ", ")) only."
        } else {
            error.message = "Cannot start '\(executable)' confined: \(call) failed in the child (\(errno))."
        }
        return error
    }

    /// `path` made absolute against the working directory (a relative `SANDBOX_HOME`).
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
