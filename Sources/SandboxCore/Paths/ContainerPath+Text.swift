extension ContainerPath {
    /// The names as text, for code that compares them with names it knows (`"Documents"`): each
    /// name exactly when it is valid UTF-8, else its escaped ``FileName/description``, which names
    /// no item. To reach items, use ``names``.
    public var components: [String] { names.map { $0.string ?? $0.description } }

    /// The last of ``components``, or `nil` for the root.
    public var lastComponent: String? { names.last.map { $0.string ?? $0.description } }

    /// The path as text, exactly, when every name is valid UTF-8 (`nil` otherwise): what
    /// ``init(_:)`` turns back into this path. `.` for the root.
    public var string: String? {
        var parts: [String] = []
        for name in names {
            guard let text = name.string else { return nil }
            parts.append(text)
        }
        return parts.isEmpty ? "." : parts.joined(separator: "/")
    }
}
