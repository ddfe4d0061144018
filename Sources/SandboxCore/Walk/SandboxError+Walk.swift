extension SandboxError.Code {
    /// A directory was moved or replaced while an operation was working inside it; the operation
    /// stopped rather than continue somewhere else.
    public static let concurrentModification = SandboxError.Code("concurrent-modification")
}

extension SandboxError {
    /// A directory left mid-walk is no longer where the walk entered it from.
    static func movedDuringWalk(_ path: String, file: String = #fileID, line: Int = #line) -> SandboxError {
        .rule(
            .concurrentModification,
            "'\(path)' was moved or replaced while its contents were being walked, so the walk stopped there; nothing outside it was touched. Run the operation again once the folder stays put.",
            path: path, file: file, line: line)
    }

    /// An item lies deeper than a ``ContainerPath`` can name.
    static func beyondPathLimit(_ directory: String, file: String = #fileID, line: Int = #line) -> SandboxError {
        .rule(
            .nameTooLong,
            "Items inside '\(directory)' are nested too deeply to be named by a path (longer than \(ContainerPath.maximumLength) bytes), so they cannot be listed. Move that folder nearer the top of the container, or remove it recursively.",
            path: directory, file: file, line: line)
    }
}
