import SystemPackage

extension SandboxError {
    /// Maps a failed system call to an error, in one place.
    ///
    /// The meaning of an `errno` depends on the call: `EXDEV` from `openat2` with `RESOLVE_BENEATH`
    /// means the path tried to leave the root (openat2(2)), while from `renameat` it means the two
    /// names are on different file systems (rename(2)).
    package static func systemCall(
        _ name: String,
        errno: Errno,
        path: String,
        file: String = #fileID,
        line: Int = #line
    ) -> SandboxError {
        let cause = SystemCallFailure(systemCall: name, errno: errno)
        let location = SourceLocation(file: file, line: line)
        let (code, message) = describe(name, errno, path)
        return SandboxError(code: code, message: message, path: path, cause: cause, location: location)
    }

    private static func describe(_ call: String, _ errno: Errno, _ path: String) -> (Code, String) {
        let quoted = "'\(path)'"
        switch errno {
        case .improperLink where call == "openat2":
            return (.escapesContainer, escapeMessage(path))
        case .improperLink:
            return (
                .crossDevice,
                "\(quoted) is on another file system than the destination; copy it, then remove the original."
            )
        case .noSuchFileOrDirectory:
            return (.notFound, "No item at \(quoted). Check the path and its spelling.")
        case .fileExists:
            return (.alreadyExists, "An item already exists at \(quoted). Remove it first or choose another name.")
        case .notDirectory:
            return (.notADirectory, "A component of \(quoted) is not a directory.")
        case .isDirectory:
            return (.isADirectory, "\(quoted) is a directory; a file was expected.")
        case .directoryNotEmpty:
            return (
                .directoryNotEmpty,
                "The directory \(quoted) is not empty. Remove its contents first or remove it recursively."
            )
        case .permissionDenied, .notPermitted:
            return (.permissionDenied, "Permission denied for \(quoted). Check the item's permissions and owner.")
        case .readOnlyFileSystem:
            return (.readOnly, "\(quoted) is on a read-only file system.")
        case .noSpace, .diskQuotaExceeded:
            return (
                .noSpace,
                "No space left on the device while writing \(quoted). Free space and try again; the previous contents are intact."
            )
        case .tooManyOpenFiles, .tooManyOpenFilesInSystem:
            return (
                .tooManyOpenFiles,
                "Out of file descriptors while opening \(quoted). Close files or raise the limit (`ulimit -n`)."
            )
        case .tooManySymbolicLinkLevels:
            return (
                .symlinkLoop,
                "Too many symbolic links while resolving \(quoted): it is a link loop, or a link to a magic /proc path."
            )
        case .fileNameTooLong:
            return (.nameTooLong, "\(quoted) is too long for the file system (255 bytes a name, 4095 a path).")
        case .notSupported:
            return (.unsupported, "The file system does not support \(call) on \(quoted).")
        case .fileTooLarge:
            return (.fileTooLarge, "\(quoted) is too large for the file system.")
        case .interrupted:
            return (.interrupted, "\(call) on \(quoted) was interrupted.")
        case .ioError:
            return (.io, "An input/output error occurred on \(quoted); the device may be failing.")
        case .invalidArgument:
            return (.invalidArgument, "\(call) rejected its arguments for \(quoted).")
        case .noSuchAddressOrDevice, .operationNotSupportedByDevice:
            return (.notARegularFile, "\(quoted) is not a regular file.")
        default:
            return (.unknown, "\(call) failed on \(quoted).")
        }
    }

    package static func escapeMessage(_ path: String) -> String {
        "'\(path)' escapes the container: paths are relative to the container's home and may not leave it (no '..' above it, no absolute paths, no symlinks that point out)."
    }

    /// An error that is not a system call's: a rule of the library was broken.
    package static func rule(
        _ code: Code,
        _ message: String,
        path: String? = nil,
        file: String = #fileID,
        line: Int = #line
    ) -> SandboxError {
        SandboxError(
            code: code, message: message, path: path, cause: nil, location: SourceLocation(file: file, line: line))
    }
}
