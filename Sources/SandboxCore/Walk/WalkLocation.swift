/// Where a tree walk stands: the path of the directory being read, as names below the walk's base.
///
/// Paths are built only when asked for, and only while they fit in a ``ContainerPath``
/// (4095 bytes): a walk goes as deep as the tree does, far past what a path can name.
package struct WalkLocation: Sendable {
    /// The directory the walk started at.
    package let base: ContainerPath
    /// The names from `base` down to the directory being read.
    package private(set) var names: [FileName] = []
    /// The length in bytes of the path of the directory being read.
    package private(set) var byteCount: Int

    init(base: ContainerPath) {
        self.base = base
        byteCount = base.isRoot ? 0 : base.byteCount
    }

    /// The same place below another base (a copy's destination).
    package func rebased(on other: ContainerPath) -> WalkLocation {
        var moved = WalkLocation(base: other)
        for name in names { moved.push(name) }
        return moved
    }

    /// How deep the directory being read is below `base` (0 for `base` itself).
    package var depth: Int { names.count }

    mutating func push(_ name: FileName) {
        byteCount = lengthOfChild(name)
        names.append(name)
    }

    mutating func pop() {
        guard let name = names.popLast() else { return }
        byteCount -= name.count + (byteCount == name.count ? 0 : 1)
    }

    /// The length of the path of `name` inside the directory being read.
    package func lengthOfChild(_ name: FileName) -> Int { lengthOfChild(byteCount: name.count) }

    /// The length of the path of a name of `count` bytes inside the directory being read.
    package func lengthOfChild(byteCount count: Int) -> Int { byteCount == 0 ? count : byteCount + 1 + count }

    /// Whether every item directly inside a directory named `name` here can be given a path.
    package func childrenAlwaysFit(under name: FileName) -> Bool {
        childrenAlwaysFit(underNameOfLength: name.count)
    }

    /// Whether every item directly inside a directory here whose name is `count` bytes long can be
    /// given a path.
    package func childrenAlwaysFit(underNameOfLength count: Int) -> Bool {
        lengthOfChild(byteCount: count) + 1 + FileName.maximumLength <= ContainerPath.maximumLength
    }

    /// The path of `name` inside the directory being read, or `nil` when it is longer than a
    /// ``ContainerPath`` may be.
    package func path(of name: FileName) -> ContainerPath? {
        guard lengthOfChild(name) <= ContainerPath.maximumLength else { return nil }
        return base.appending(contentsOf: names + [name])
    }

    /// The path of the directory being read, or `nil` when it is too long.
    package var directoryPath: ContainerPath? {
        guard byteCount <= ContainerPath.maximumLength else { return nil }
        return base.appending(contentsOf: names)
    }

    /// The path of `name` (or of the directory being read) for messages: whole when short, else
    /// its first and last names around the count of those left out.
    package func display(_ name: FileName? = nil) -> String {
        let count = names.count + (name == nil ? 0 : 1)
        func at(_ index: Int) -> String {
            (index < names.count ? names[index] : name ?? FileName.parentReference).description
        }
        let prefix = base.isRoot ? "" : base.description + "/"
        guard count > 0 else { return base.description }
        guard count > 8 else { return prefix + (0..<count).map(at).joined(separator: "/") }
        let head = (0..<3).map(at).joined(separator: "/")
        let tail = (count - 3..<count).map(at).joined(separator: "/")
        return prefix + head + "/…(\(count - 6) more levels)…/" + tail
    }
}
