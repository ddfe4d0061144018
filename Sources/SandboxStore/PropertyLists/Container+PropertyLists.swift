import Sandbox

extension Container {
    /// Writes `value` as a property list at `path`, atomically: readers see the old file or the
    /// new one, never a mix, and nothing is written if encoding fails.
    ///
    /// - Parameters:
    ///   - value: the value to write; its top level must encode as a dictionary or an array.
    ///   - path: the file to create or replace, relative to the container's home.
    ///   - format: ``PropertyListFormat/binary`` by default.
    ///   - options: ``/SandboxCore/WriteOptions/atomic`` is always added;
    ///     ``/SandboxCore/WriteOptions/durable`` by default.
    /// - Throws: ``/SandboxCore/SandboxError`` with ``SandboxCore/SandboxError/Code/encodingFailed``; ``/SandboxCore/SandboxError/Code/readOnly``
    ///   for `Library/Preferences` (use ``preferences()``) and `Documents/Inbox`; the core's codes
    ///   (e.g. `not-found` for a missing folder, `escapes-container`, `no-space`).
    public func writePropertyList<Value: Encodable>(
        _ value: Value,
        to path: ContainerPath,
        format: PropertyListFormat = .binary,
        options: WriteOptions = [.atomic, .durable]
    ) throws(SandboxError) {
        try checkPolicy(allowing: .create, at: path)
        let bytes = try PropertyList.encode(value, format: format)
        try root.writeContents(bytes, to: path, options: options.union(.atomic))
    }

    /// Reads a `Value` from the property list at `path`, binary or XML (told by its first bytes).
    ///
    /// - Parameters:
    ///   - type: the type to decode.
    ///   - path: the file to read, relative to the container's home.
    ///   - maximumSize: refuse files larger than this many bytes.
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/corrupt`` for a file that is not a property
    ///   list or is truncated, ``SandboxCore/SandboxError/Code/typeMismatch`` for one of another shape (the file
    ///   is left as it was in both cases), and the core's codes (e.g. `not-found`, `file-too-large`).
    public func readPropertyList<Value: Decodable>(
        _ type: Value.Type,
        from path: ContainerPath,
        maximumSize: Int = ConfinedRoot.defaultMaximumReadSize
    ) throws(SandboxError) -> Value {
        let bytes = try root.readContents(of: path, maximumSize: maximumSize)
        return try PropertyList.decode(Value.self, from: bytes, path: path.description)
    }

    /// The format of the property list at `path`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError`` with ``/SandboxCore/SandboxError/Code/corrupt`` when the file is not a property
    ///   list, and the core's codes.
    public func propertyListFormat(at path: ContainerPath) throws(SandboxError) -> PropertyListFormat {
        let bytes = try root.readContents(of: path)
        guard let format = PropertyListFormat.detect(bytes) else {
            throw SandboxError(.corrupt, "'\(path)' is not a property list.", path: path.description)
        }
        return format
    }
}
