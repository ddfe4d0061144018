/// Landlock's access rights on files and folders (landlock(7), "Filesystem flags").
///
/// A right the ruleset handles is denied unless a rule grants it beneath the path; a right it does
/// not handle (one the kernel's ABI lacks) is not restricted at all.
public struct FileSystemAccess: OptionSet, Sendable, Hashable {
    /// The kernel's bit mask, as in `landlock_ruleset_attr.handled_access_fs` and
    /// `landlock_path_beneath_attr.allowed_access`.
    public let rawValue: UInt64
    /// The rights whose bits are set in `rawValue`, unknown bits included.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Executing a file (`LANDLOCK_ACCESS_FS_EXECUTE`).
    public static let execute = Self(rawValue: 1 << 0)
    /// Opening a file for writing (`LANDLOCK_ACCESS_FS_WRITE_FILE`); truncating it also needs
    /// ``truncate`` from ABI 3.
    public static let writeFile = Self(rawValue: 1 << 1)
    /// Opening a file for reading (`LANDLOCK_ACCESS_FS_READ_FILE`).
    public static let readFile = Self(rawValue: 1 << 2)
    /// Opening a folder or listing its entries (`LANDLOCK_ACCESS_FS_READ_DIR`).
    public static let readDirectory = Self(rawValue: 1 << 3)
    /// Removing an empty folder or renaming one (`LANDLOCK_ACCESS_FS_REMOVE_DIR`).
    public static let removeDirectory = Self(rawValue: 1 << 4)
    /// Unlinking or renaming a file (`LANDLOCK_ACCESS_FS_REMOVE_FILE`).
    public static let removeFile = Self(rawValue: 1 << 5)
    /// Creating, renaming or linking a character device (`LANDLOCK_ACCESS_FS_MAKE_CHAR`).
    public static let makeCharacterDevice = Self(rawValue: 1 << 6)
    /// Creating or renaming a folder (`LANDLOCK_ACCESS_FS_MAKE_DIR`).
    public static let makeDirectory = Self(rawValue: 1 << 7)
    /// Creating, renaming or linking a regular file (`LANDLOCK_ACCESS_FS_MAKE_REG`).
    public static let makeRegular = Self(rawValue: 1 << 8)
    /// Creating, renaming or linking a Unix socket file (`LANDLOCK_ACCESS_FS_MAKE_SOCK`).
    public static let makeSocket = Self(rawValue: 1 << 9)
    /// Creating, renaming or linking a named pipe (`LANDLOCK_ACCESS_FS_MAKE_FIFO`).
    public static let makeFIFO = Self(rawValue: 1 << 10)
    /// Creating, renaming or linking a block device (`LANDLOCK_ACCESS_FS_MAKE_BLOCK`).
    public static let makeBlockDevice = Self(rawValue: 1 << 11)
    /// Creating, renaming or linking a symbolic link (`LANDLOCK_ACCESS_FS_MAKE_SYM`).
    public static let makeSymlink = Self(rawValue: 1 << 12)
    /// Linking or renaming a file into another folder (ABI 2). Without it, ABI 1 refuses every
    /// such link and rename.
    public static let refer = Self(rawValue: 1 << 13)
    /// `truncate(2)`, `ftruncate(2)` and `O_TRUNC` (ABI 3); before it, truncation is not restricted.
    public static let truncate = Self(rawValue: 1 << 14)
    /// `ioctl(2)` on character and block devices opened after confinement (ABI 5).
    public static let ioctlDevice = Self(rawValue: 1 << 15)

    /// Reading files and listing folders.
    public static let readOnly: Self = [.readFile, .readDirectory]
    /// Reading, listing and executing.
    public static let readAndExecute: Self = [.readFile, .readDirectory, .execute]
    /// Everything an app does in its own container: read, write, create, remove, rename and link
    /// within it, truncate. Not device nodes (a block device made in the container would read the
    /// raw disk), not `ioctl` on devices, not execute (iOS apps execute only their bundle).
    public static let container: Self = [
        .writeFile, .readFile, .readDirectory, .removeDirectory, .removeFile, .makeDirectory, .makeRegular,
        .makeSocket, .makeFIFO, .makeSymlink, .refer, .truncate,
    ]

    /// The only rights a rule on a file (not a folder) may carry.
    public static let fileRights: Self = [.execute, .writeFile, .readFile, .truncate, .ioctlDevice]

    /// Every right that Landlock ABI `version` can handle.
    public static func handled(byABI version: Int) -> Self {
        guard version >= 1 else { return [] }
        var rights = Self(rawValue: (1 << 13) - 1)
        if version >= 2 { rights.insert(.refer) }
        if version >= 3 { rights.insert(.truncate) }
        if version >= 5 { rights.insert(.ioctlDevice) }
        return rights
    }
}

/// Landlock's network rights (ABI 4): TCP only.
public struct NetworkAccess: OptionSet, Sendable, Hashable {
    /// The kernel's bit mask, as in `landlock_ruleset_attr.handled_access_net` and
    /// `landlock_net_port_attr.allowed_access`.
    public let rawValue: UInt64
    /// The rights whose bits are set in `rawValue`, unknown bits included.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Binding a TCP socket to a local port (`LANDLOCK_ACCESS_NET_BIND_TCP`).
    public static let bindTCP = Self(rawValue: 1 << 0)
    /// Connecting a TCP socket to a remote port (`LANDLOCK_ACCESS_NET_CONNECT_TCP`).
    public static let connectTCP = Self(rawValue: 1 << 1)

    /// Every right that Landlock ABI `version` can handle.
    public static func handled(byABI version: Int) -> Self { version >= 4 ? [.bindTCP, .connectTCP] : [] }
}

/// Landlock's scopes (ABI 6): IPC that a confined process may not direct outside its domain.
public struct LandlockScope: OptionSet, Sendable, Hashable {
    /// The kernel's bit mask, as in `landlock_ruleset_attr.scoped`.
    public let rawValue: UInt64
    /// The scopes whose bits are set in `rawValue`, unknown bits included.
    public init(rawValue: UInt64) { self.rawValue = rawValue }

    /// Connecting to an abstract Unix socket bound by a process outside the domain.
    public static let abstractUnixSocket = Self(rawValue: 1 << 0)
    /// Sending a signal to a process outside the domain.
    public static let signal = Self(rawValue: 1 << 1)

    /// Every scope that Landlock ABI `version` can handle.
    public static func handled(byABI version: Int) -> Self { version >= 6 ? [.abstractUnixSocket, .signal] : [] }
}
