import CSandboxShims

extension OpenFile {
    /// The open file's resource values, from `statx` of its descriptor: the file as it is now,
    /// whatever became of its name since it was opened. One call where a path-based
    /// ``ConfinedRoot/attributes(at:followingSymlink:)`` before the open would resolve the path a
    /// second time and could describe another file than the one opened.
    ///
    /// - Throws: ``SandboxError/Code/closed`` when the handle is closed; the `statx` errors.
    public func attributes() throws(SandboxError) -> FileAttributes {
        try descriptor.use { fd throws(SandboxError) in
            try ConfinedRoot.statx(fd, "", flags: CSB_AT_EMPTY_PATH, path: path)
        }
    }
}
