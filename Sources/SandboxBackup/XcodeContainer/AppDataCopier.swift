import CSandboxShims
import Glibc
import Sandbox
import SandboxCore
import SandboxStore
import SystemPackage

/// Copies a data container's tree from one folder into another, for ``XcodeContainer``: the live
/// container into a package's `AppData` (export), a package's `AppData` into a staged container
/// (import). It walks the source with the package's one walker (``SandboxCore/TreeWalk``, links
/// never followed, any depth) and makes each item in the mirror: folders, files (contents, mode
/// without set-user-ID and set-group-ID, `user.` extended attributes, times), symlinks as symlinks.
///
/// The rules, the same both ways where they can be:
/// - A symlink is copied as a link only when its target is relative and stays inside the tree
///   copied, read as a path from the link's folder (`../Library/x` from `Documents`; see
///   ``staysInside(_:fromDepth:)``); an absolute target or one that climbs out is refused. A package is opened by a device that resolves it
///   elsewhere, and an import must not plant a name meaning a host file in a container.
/// - A container's own folder (`Documents`, `Library`, `tmp`, …) that is not a folder: an import
///   refuses it; an export leaves it out with a note (an app that planted one must not make its
///   container impossible to export; a link holds no data of its own).
/// - A FIFO, socket or device: an import refuses it; an export leaves it out with a note, as a
///   backup does.
/// - A file with a second name (a hard link): an import refuses it — a hard link in a package may
///   name any file of its owner on the same file system, and importing it would copy that file
///   into the app's container; an export copies each name as a file of its own (Xcode's layout has
///   no hard links).
/// - Names are kept byte for byte, UTF-8 or not, as a restore keeps them.
/// - Counts and bytes are bounded by ``XcodeContainerLimits``.
struct AppDataCopier: TreeVisitor {
    enum Direction {
        case exporting, importing
    }

    let direction: Direction
    let limits: XcodeContainerLimits
    /// Names the source's top in messages (a package's `AppData`, an app's container).
    let source: String
    /// Items left out by path (the preferences' lock, iOS's container identity file).
    let skipped: Set<ContainerPath>
    /// Where protected files are read and sealed (``AppDataCopier+Protection``).
    let protection: Protection
    private(set) var items = 0
    private(set) var bytes: Int64 = 0
    /// Set by the protected files' copies too.
    var notes: [String] = []
    /// The classes an import found writable (checked once each).
    var writableClasses: Set<ProtectionClass> = []

    /// A data container's own folders, parents first (never anything but folders).
    static let containerDirectories: Set<ContainerPath> = Set(
        ContainerDirectory.allCases.compactMap(\.path).filter { !$0.isRoot })

    init(
        _ direction: Direction, limits: XcodeContainerLimits, source: String, skipping skipped: Set<ContainerPath>,
        protection: Protection
    ) {
        self.direction = direction
        self.limits = limits
        self.source = source
        self.skipped = skipped
        self.protection = protection
    }

    /// Copies the contents of the open folder `input` into the open folder `output`; the two
    /// folders' own modes and times are the caller's.
    mutating func copy(from input: CInt, to output: CInt) throws(SandboxError) {
        var walk = try TreeWalk(root: input, at: .root, mirror: output)
        try walk.run(&self)
    }

    mutating func visit(_ entry: WalkEntry, at location: borrowing WalkLocation) throws(SandboxError) -> Bool {
        guard let output = entry.mirror else { return false }
        let name = entry.fileName
        let shown = location.display(name)
        guard let path = location.path(of: name) else {
            throw refusal(shown, "is deeper than a path can name (4,095 bytes)")
        }
        if skipped.contains(path) { return false }
        var info = stat()
        guard fstatat(entry.directory, entry.name, &info, CSB_AT_SYMLINK_NOFOLLOW) == 0 else {
            throw .systemCall("fstatat", errno: Errno(rawValue: errno), path: display(shown))
        }
        items += 1
        guard items <= limits.maximumItems else {
            throw refusal(shown, "is past the limit of \(limits.maximumItems) items", code: .tooLarge)
        }
        let type = info.st_mode & S_IFMT
        if type != S_IFDIR, Self.containerDirectories.contains(path) {
            guard direction == .exporting else {
                throw refusal(shown, "is a container folder, but not a folder (\(Self.kind(type)))")
            }
            notes.append(
                "'\(path)' is \(Self.kind(type)), not a folder; a container's own folders are never links or files, so it was left out."
            )
            return false
        }
        switch type {
        case S_IFDIR:
            _ = try syscall("mkdirat", path: display(shown)) { mkdirat(output, entry.name, 0o700) }
            return true
        case S_IFREG:
            try copyFile(entry, info, at: path, into: output, shown: shown)
        case S_IFLNK:
            try copyLink(entry, into: output, depth: location.depth, shown: shown)
        default:
            guard direction == .exporting else { throw refusal(shown, "is \(Self.kind(type))") }
            notes.append("'\(path)' is \(Self.kind(type)): left out.")
        }
        return false
    }

    func enter(
        _ directory: CInt, named name: FileName, mirrorParent: CInt?, at location: borrowing WalkLocation
    ) throws(SandboxError) -> CInt? {
        guard let mirrorParent else { return nil }
        let shown = display(location.display())
        let mirror = try syscall("openat", path: shown) {
            openat(mirrorParent, name.cString, O_RDONLY | CSB_O_DIRECTORY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
        }
        do throws(SandboxError) {
            try ExtendedAttributes.copyUserAttributes(from: directory, to: mirror, path: shown)
        } catch {
            close(mirror)
            throw error
        }
        return mirror
    }

    func leave(
        _ directory: CInt, named name: FileName, in parent: CInt, mirror: CInt?, at location: borrowing WalkLocation
    ) throws(SandboxError) {
        guard let mirror else { return }
        try Self.copyModeAndTimes(from: directory, to: mirror, path: display(location.display()))
    }

    /// Gives `output` the mode (without set-user-ID and set-group-ID) and times of `input`: for a
    /// folder, once everything in it is made.
    static func copyModeAndTimes(from input: CInt, to output: CInt, path: String) throws(SandboxError) {
        var info = stat()
        _ = try syscall("fstat", path: path) { fstat(input, &info) }
        _ = try syscall("fchmod", path: path) { fchmod(output, info.st_mode & 0o1777) }
        var times = [info.st_atim, info.st_mtim]
        _ = try syscall("futimens", path: path) { futimens(output, &times) }
    }

    private mutating func copyFile(
        _ entry: WalkEntry, _ listed: stat, at path: ContainerPath, into output: CInt, shown: String
    ) throws(SandboxError) {
        let fd = openat(entry.directory, entry.name, O_RDONLY | O_NONBLOCK | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
        guard fd >= 0 else { throw .systemCall("openat", errno: Errno(rawValue: errno), path: display(shown)) }
        let input = OwnedDescriptor(taking: fd)
        // What was opened, not what was listed: the item may have been swapped in between.
        var info = stat()
        _ = try syscall("fstat", path: display(shown)) { fstat(input.rawValue, &info) }
        guard info.st_mode & S_IFMT == S_IFREG, FileIdentity(info) == FileIdentity(listed) else {
            throw SandboxError(
                .concurrentModification,
                "'\(display(shown))' was replaced while it was copied; nothing was changed. Try again once it is left alone.",
                path: display(shown))
        }
        if direction == .importing, info.st_nlink > 1 {
            throw refusal(shown, "is a hard link (one of \(info.st_nlink) names of a file)")
        }
        bytes += Int64(info.st_size)
        guard bytes <= limits.maximumBytes else {
            throw refusal(shown, "is past the limit of \(limits.maximumBytes) bytes of files", code: .tooLarge)
        }
        let sealed = try Self.startsSealed(input.rawValue, path: display(shown))
        switch direction {
        case .exporting where sealed:
            if let plaintext = try exportPlaintext(entry, at: path, listed: info, into: output, shown: display(shown)) {
                bytes += plaintext - Int64(info.st_size)  // what the package holds
                return try finishCopy(of: input.rawValue, as: entry, in: output, shown: shown)
            }
        case .importing where sealed:
            try requireOpensHere(path, listed: info, shown: display(shown))
        case .importing:
            if let protectionClass = try importedClass(of: path, shown: shown) {
                let sealed = try importSealed(
                    input.rawValue, at: path, as: protectionClass, shown: display(shown))
                guard sealed == Int64(info.st_size) else {
                    throw Self.changedSize(display(shown), from: Int64(info.st_size), to: sealed)
                }
                return try finishCopy(of: input.rawValue, as: entry, in: output, shown: shown)
            }
        case .exporting:
            break
        }
        let created = try syscall("openat", path: display(shown)) {
            openat(output, entry.name, O_WRONLY | O_CREAT | O_EXCL | CSB_O_NOFOLLOW | CSB_O_CLOEXEC, 0o600)
        }
        let copy = OwnedDescriptor(taking: created)
        let copied = try ByteCopier.copy(from: input.rawValue, to: copy.rawValue, wholeFile: true, path: display(shown))
        guard copied == Int64(info.st_size) else {
            throw Self.changedSize(display(shown), from: Int64(info.st_size), to: copied)
        }
        try ExtendedAttributes.copyUserAttributes(from: input.rawValue, to: copy.rawValue, path: display(shown))
        try Self.copyModeAndTimes(from: input.rawValue, to: copy.rawValue, path: display(shown))
    }

    /// Gives the file made at `entry`'s name in `output` the `user.` extended attributes, mode and
    /// times of `input`.
    private func finishCopy(of input: CInt, as entry: WalkEntry, in output: CInt, shown: String) throws(SandboxError) {
        let made = try syscall("openat", path: display(shown)) {
            openat(output, entry.name, O_RDONLY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
        }
        let copy = OwnedDescriptor(taking: made)
        try ExtendedAttributes.copyUserAttributes(from: input, to: copy.rawValue, path: display(shown))
        try Self.copyModeAndTimes(from: input, to: copy.rawValue, path: display(shown))
    }

    private static func changedSize(_ path: String, from size: Int64, to copied: Int64) -> SandboxError {
        SandboxError(
            .concurrentModification,
            "'\(path)' changed size while it was copied (\(size) bytes, then \(copied)); nothing was changed. Try again once it is left alone.",
            path: path)
    }

    private mutating func copyLink(
        _ entry: WalkEntry, into output: CInt, depth: Int, shown: String
    )
        throws(SandboxError)
    {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = try syscall("readlinkat", path: display(shown)) {
            readlinkat(entry.directory, entry.name, &buffer, buffer.count - 1)
        }
        buffer[count] = 0
        let target = buffer[0..<count].map { UInt8(bitPattern: $0) }
        let text = String(decoding: target, as: UTF8.self)
        guard Self.staysInside(target, fromDepth: depth) else {
            throw refusal(
                shown,
                "is a symlink to '\(text)', which leads out of \(direction == .importing ? "AppData" : "the container")",
                remedy: direction == .importing
                    ? "Remove the link from the package, or make it a relative link to an item inside AppData."
                    : "Remove the link, or make it a relative link to an item inside the container, and export again.")
        }
        _ = try syscall("symlinkat", path: display(shown)) { symlinkat(buffer, output, entry.name) }
        var info = stat()
        _ = try syscall("fstatat", path: display(shown)) {
            fstatat(entry.directory, entry.name, &info, CSB_AT_SYMLINK_NOFOLLOW)
        }
        var times = [info.st_atim, info.st_mtim]
        _ = try syscall("utimensat", path: display(shown)) {
            utimensat(output, entry.name, &times, CSB_AT_SYMLINK_NOFOLLOW)
        }
    }

    /// Whether the symlink target `target`, in a folder `depth` levels beneath the tree's top,
    /// names an item inside the tree: relative, not empty, its `..` only at its start and no more
    /// of them than `depth`. The link's folders are real folders (the walk never follows a link),
    /// so the `..` climb real folders; the names after them only descend, and a link met on the
    /// way was held to the same rule. `a/..` is refused: when `a` is a link, its `..` is the
    /// parent of where `a` leads, which a text reading cannot know.
    static func staysInside(_ target: [UInt8], fromDepth depth: Int) -> Bool {
        guard let first = target.first, first != UInt8(ascii: "/") else { return false }
        var climbed = 0
        var descended = false
        for part in target.split(separator: UInt8(ascii: "/")) where !part.elementsEqual(".".utf8) {
            if part.elementsEqual("..".utf8) {
                climbed += 1
                if descended || climbed > depth { return false }
            } else {
                descended = true
            }
        }
        return true
    }

    private static func kind(_ type: mode_t) -> String {
        switch type {
        case S_IFLNK: "a symlink"
        case S_IFREG: "a file"
        case S_IFIFO: "a FIFO"
        case S_IFSOCK: "a socket"
        case S_IFCHR, S_IFBLK: "a device"
        default: "an item of an unknown type"
        }
    }

    /// `shown` (a path beneath the source's top) as a person finds it.
    func display(_ shown: String) -> String { shown.isEmpty ? source : "\(source)/\(shown)" }

    func refusal(
        _ shown: String, _ problem: String, code: SandboxError.Code = .invalidPackage, remedy: String? = nil
    ) -> SandboxError {
        let path = display(shown)
        switch direction {
        case .importing:
            return SandboxError(
                code,
                "'\(path)' \(problem); the package was not imported and the app's container is unchanged. \(remedy ?? "Remove it from the package, or export the container again.")",
                path: path)
        case .exporting:
            return SandboxError(
                code,
                "'\(path)' \(problem); nothing was exported. \(remedy ?? "Remove it from the container, then export again.")",
                path: path)
        }
    }
}
