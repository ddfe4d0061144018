import Glibc
import SystemPackage

/// What an ``OpenFile`` or ``IOChannel`` may do with its file.
public enum FileAccess: Sendable, Hashable {
    /// Read only (`O_RDONLY`).
    case reading
    /// Write only (`O_WRONLY`).
    case writing
    /// Read and write (`O_RDWR`).
    case readingAndWriting

    var openFlags: CInt {
        switch self {
        case .reading: O_RDONLY
        case .writing: O_WRONLY
        case .readingAndWriting: O_RDWR
        }
    }

    var canRead: Bool { self != .writing }
    var canWrite: Bool { self != .reading }
}

/// How opening a file for writing treats an existing file and a missing one.
public struct FileOpenOptions: Sendable, Hashable {
    /// What to do when the file exists.
    public enum ExistingFile: Sendable, Hashable {
        /// Open it as it is.
        case open
        /// Empty it (`O_TRUNC`).
        case truncate
        /// Fail with ``SandboxError/Code/alreadyExists`` (`O_EXCL`).
        case fail
    }

    /// What to do when the file exists.
    public var existingFile: ExistingFile
    /// Whether to create the file when it is missing (otherwise ``SandboxError/Code/notFound``).
    public var createIfMissing: Bool
    /// Whether every write goes to the end of the file (`O_APPEND`); offsets are then ignored by
    /// the kernel.
    public var appending: Bool
    /// The permissions of a created file, less the umask: `0600` by default
    /// (`FilePermissions.privateFile`).
    public var permissions: mode_t

    /// Options from their parts; the named factories (``newFile(replaceExisting:)``,
    /// ``modifyFile(createIfNecessary:)``, ``appendToFile``) cover the usual cases.
    public init(
        existingFile: ExistingFile, createIfMissing: Bool, appending: Bool = false,
        permissions: mode_t = FilePermissions.privateFile.rawValue
    ) {
        self.existingFile = existingFile
        self.createIfMissing = createIfMissing
        self.appending = appending
        self.permissions = permissions
    }

    /// A new file: created, and an existing one emptied (`replaceExisting`) or refused.
    public static func newFile(replaceExisting: Bool) -> FileOpenOptions {
        FileOpenOptions(existingFile: replaceExisting ? .truncate : .fail, createIfMissing: true)
    }

    /// An existing file, opened as it is; created if missing when `createIfNecessary`.
    public static func modifyFile(createIfNecessary: Bool) -> FileOpenOptions {
        FileOpenOptions(existingFile: .open, createIfMissing: createIfNecessary)
    }

    /// Appending to a file, created if missing.
    public static let appendToFile = FileOpenOptions(existingFile: .open, createIfMissing: true, appending: true)

    var openFlags: CInt {
        var flags: CInt = 0
        if createIfMissing { flags |= O_CREAT }
        switch existingFile {
        case .open: break
        case .truncate: flags |= O_TRUNC
        case .fail: flags |= O_CREAT | O_EXCL
        }
        if appending { flags |= O_APPEND }
        return flags
    }
}

/// Where a ``OpenFile/seek(to:from:)`` offset counts from.
public enum SeekOrigin: Sendable, Hashable {
    /// The start of the file (`SEEK_SET`).
    case start
    /// The current position (`SEEK_CUR`).
    case current
    /// The end of the file (`SEEK_END`).
    case end

    var whence: CInt {
        switch self {
        case .start: SEEK_SET
        case .current: SEEK_CUR
        case .end: SEEK_END
        }
    }
}

/// What ``OpenFile/synchronize(_:)`` flushes to the device.
public enum SyncScope: Sendable, Hashable {
    /// Data and all metadata (`fsync`).
    case dataAndMetadata
    /// Data and the metadata needed to read it back, such as the size (`fdatasync`); faster.
    case data
}
