import CSandboxShims
import Glibc
import SystemPackage

/// Walks a directory tree with an explicit stack and a bounded number of open descriptors.
///
/// The one walker beneath enumeration, sizing, recursive removal and recursive copy, so that
/// however deep a tree is — a 15,000-level chain of folders is a few lines of shell — no walk
/// overflows the stack or runs out of descriptors:
/// - Directories are read whole with `getdents64` into one shared buffer; each entry goes to the
///   visitor at once, and the subdirectories to descend into are kept by name (raw bytes), so
///   names that are not valid UTF-8 reach every `*at` call exactly as listed.
/// - Subdirectories are opened with `openat(O_NOFOLLOW | O_DIRECTORY)` relative to their parent:
///   a symlink is never followed, so nothing outside the tree is reached.
/// - At most `maximumOpenDescriptors` directories are open at once. Deeper, the shallowest open
///   ones are closed; coming back up, a closed directory is reopened as `..` of its child and
///   checked to be the very directory entered (device and inode), as `fts(3)` does. A directory
///   moved while the walk is inside it fails the check: the walk stops with
///   ``SandboxError/Code/concurrentModification`` instead of going anywhere else.
/// - In ``Order/byName`` order (a listing for people), each directory is read whole first and its
///   entries are visited sorted by name, each directory chosen for descent walked right after its
///   own entry: the order of the paths sorted name by name, with one directory's names in memory at
///   a time per level.
package struct TreeWalk: ~Copyable {
    /// The order entries are visited in.
    package enum Order: Sendable {
        /// As `getdents64` returns them, a directory's entries all visited before any of its
        /// subdirectories is walked: the fastest.
        case asRead
        /// Each directory's entries by name (bytes, as ``FileName`` orders them), a directory's
        /// contents right after it (`a`, `a/b`, `a-c`), as ``ContainerPath`` sorts paths.
        case byName
    }

    /// Descriptors a walk keeps open at once by default: few enough that a process under a small
    /// `ulimit -n` (64) still has room for its own, many enough that ordinary trees (shallower
    /// than this) never need a directory reopened.
    package static let defaultMaximumOpenDescriptors = 16

    private struct Frame {
        /// Open for reading, or -1 while closed to respect the bound.
        var descriptor: CInt
        /// The mirror's descriptor, -1 when closed or absent.
        var mirror: CInt
        let hasMirror: Bool
        let identity: FileIdentity
        let mirrorIdentity: FileIdentity?
        let name: FileName
        var pending: [FileName] = []
        /// The directory's entries, in name order (``Order/byName`` only).
        var sorted = SortedEntries()
        var next = 0
    }

    private let reader = DirectoryReader()
    /// Frame 0 is the walk's root, whose descriptors belong to the caller and stay open.
    private var frames: [Frame] = []
    /// Frames `lowestOpen...` (and 0) are open; those between are closed.
    private var lowestOpen = 1
    private let maximumOpenFrames: Int
    private let order: Order
    package private(set) var location: WalkLocation

    /// Prepares a walk of the contents of the open directory `root` (`O_RDONLY`), the item at
    /// `base`, optionally mirrored by `mirror` in a second tree. Both stay the caller's.
    ///
    /// - Throws: the `fstat(2)` errors of `root`.
    package init(
        root: CInt,
        at base: ContainerPath,
        mirror: CInt? = nil,
        order: Order = .asRead,
        maximumOpenDescriptors: Int = TreeWalk.defaultMaximumOpenDescriptors
    ) throws(SandboxError) {
        try self.init(
            root: root, at: WalkLocation(base: base), mirror: mirror, order: order,
            maximumOpenDescriptors: maximumOpenDescriptors)
    }

    /// Prepares a walk of the open directory `root`, the directory `location` names (a walk of a
    /// subtree met by another walk, whose names may not all fit a ``ContainerPath``).
    init(
        root: CInt,
        at location: WalkLocation,
        mirror: CInt? = nil,
        order: Order = .asRead,
        maximumOpenDescriptors: Int = TreeWalk.defaultMaximumOpenDescriptors
    ) throws(SandboxError) {
        self.location = location
        self.order = order
        maximumOpenFrames = max(2, maximumOpenDescriptors / (mirror == nil ? 1 : 2))
        let identity = try FileIdentity(of: root, path: location.display())
        let mirrorIdentity = try mirror.map { (fd) throws(SandboxError) in
            try FileIdentity(of: fd, path: location.display())
        }
        frames.append(
            Frame(
                descriptor: root, mirror: mirror ?? -1, hasMirror: mirror != nil, identity: identity,
                mirrorIdentity: mirrorIdentity,
                name: location.names.last ?? location.base.lastName ?? FileName.parentReference))
    }

    deinit {
        for frame in frames.dropFirst() {
            if frame.descriptor >= 0 { Glibc.close(frame.descriptor) }
            if frame.mirror >= 0 { Glibc.close(frame.mirror) }
        }
    }

    /// Visits everything beneath the root: each directory's entries as it is read, then the
    /// directories chosen for descent, each followed by ``TreeVisitor/leave(_:named:in:mirror:at:)``
    /// (in ``Order/byName`` order: each entry once its directory is read and sorted, and a directory
    /// chosen for descent walked before the next entry).
    ///
    /// - Throws: what the visitor throws; `getdents64` and `openat` errors;
    ///   ``SandboxError/Code/concurrentModification`` when a directory was moved mid-walk.
    package mutating func run<Visitor: TreeVisitor>(_ visitor: inout Visitor) throws(SandboxError) {
        try read(0, &visitor)
        while let top = frames.indices.last {
            let index = frames[top].next
            if order == .byName {
                guard index < frames[top].sorted.count else {
                    try finish(top, &visitor)
                    continue
                }
                frames[top].next += 1
                if let name = try visitSorted(index, of: top, &visitor) { try descend(into: name, from: top, &visitor) }
                continue
            }
            guard index < frames[top].pending.count else {
                try finish(top, &visitor)
                continue
            }
            frames[top].next += 1
            let name = frames[top].pending[index]
            try descend(into: name, from: top, &visitor)
        }
    }

    /// Reads frame `index`'s directory, handing every entry to the visitor.
    private mutating func read<Visitor: TreeVisitor>(_ index: Int, _ visitor: inout Visitor) throws(SandboxError) {
        let fd = frames[index].descriptor
        let mirror = frames[index].hasMirror ? frames[index].mirror : nil
        var pending: [FileName] = []
        let location = self.location
        if order == .byName {
            var sorted = SortedEntries()
            try reader.forEachEntry(of: fd, path: location.display()) { name, type throws(SandboxError) in
                sorted.append(name, type: type)
            }
            sorted.sort()
            frames[index].sorted = sorted
            return
        }
        try reader.forEachEntry(of: fd, path: location.display()) { name, type throws(SandboxError) in
            let entry = WalkEntry(directory: fd, name: name, type: type, mirror: mirror)
            if try visitor.visit(entry, at: location) { pending.append(FileName(listed: name)) }
        }
        frames[index].pending = pending
    }

    /// Hands entry `index` of frame `top`'s sorted directory to the visitor; returns its name when
    /// the visitor chose to descend into it.
    private func visitSorted<Visitor: TreeVisitor>(
        _ index: Int, of top: Int, _ visitor: inout Visitor
    ) throws(SandboxError) -> FileName? {
        let fd = frames[top].descriptor
        let mirror = frames[top].hasMirror ? frames[top].mirror : nil
        return try frames[top].sorted.withEntry(index) { (name, type) throws(SandboxError) -> FileName? in
            let entry = WalkEntry(directory: fd, name: name, type: type, mirror: mirror)
            return try visitor.visit(entry, at: location) ? FileName(listed: name) : nil
        }
    }

    private mutating func descend<Visitor: TreeVisitor>(
        into name: FileName, from parent: Int, _ visitor: inout Visitor
    ) throws(SandboxError) {
        let parentFD = frames[parent].descriptor
        let fd = openat(parentFD, name.cString, O_RDONLY | CSB_O_DIRECTORY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
        guard fd >= 0 else {
            try visitor.descentFailed(named: name, in: parentFD, errno: errno, at: location)
            return
        }
        let child = OwnedDescriptor(taking: fd)
        location.push(name)
        let identity: FileIdentity
        var mirror: CInt?
        var mirrorIdentity: FileIdentity?
        do throws(SandboxError) {
            identity = try FileIdentity(of: child.rawValue, path: location.display())
            mirror = try visitor.enter(
                child.rawValue, named: name, mirrorParent: frames[parent].hasMirror ? frames[parent].mirror : nil,
                at: location)
            if let mirror { mirrorIdentity = try FileIdentity(of: mirror, path: location.display()) }
        } catch {
            if let mirror { Glibc.close(mirror) }
            location.pop()
            throw error
        }
        frames.append(
            Frame(
                descriptor: child.release(), mirror: mirror ?? -1, hasMirror: mirror != nil,
                identity: identity, mirrorIdentity: mirrorIdentity, name: name))
        boundOpenFrames()
        try read(frames.count - 1, &visitor)
    }

    /// Closes the shallowest open frames (never the root's, never the top) past the bound.
    private mutating func boundOpenFrames() {
        while frames.count - lowestOpen > maximumOpenFrames - 1, lowestOpen < frames.count - 1 {
            if frames[lowestOpen].descriptor >= 0 { Glibc.close(frames[lowestOpen].descriptor) }
            if frames[lowestOpen].mirror >= 0 { Glibc.close(frames[lowestOpen].mirror) }
            frames[lowestOpen].descriptor = -1
            frames[lowestOpen].mirror = -1
            lowestOpen += 1
        }
    }

    /// Leaves frame `top` (all of it visited): reopens its parent if the bound closed it, lets the
    /// visitor act on it, closes it.
    private mutating func finish<Visitor: TreeVisitor>(_ top: Int, _ visitor: inout Visitor) throws(SandboxError) {
        guard top > 0 else {
            frames.removeLast()
            return
        }
        let parent = top - 1
        if parent > 0 && parent < lowestOpen {
            try reopen(parent)
            lowestOpen = parent
        }
        let frame = frames[top]
        try visitor.leave(
            frame.descriptor, named: frame.name, in: frames[parent].descriptor,
            mirror: frame.hasMirror ? frame.mirror : nil, at: location)
        Glibc.close(frame.descriptor)
        if frame.mirror >= 0 { Glibc.close(frame.mirror) }
        frames.removeLast()
        if lowestOpen > frames.count - 1 { lowestOpen = max(1, frames.count - 1) }
        location.pop()
    }

    /// Reopens frame `index` as `..` of frame `index + 1`, and checks it is the directory entered.
    private mutating func reopen(_ index: Int) throws(SandboxError) {
        let child = frames[index + 1]
        let location = self.location
        // Only on failure: copying the location to drop its last name costs the depth.
        func path() -> String {
            var parent = location
            parent.pop()
            return parent.display()
        }
        frames[index].descriptor = try Self.reopenParent(
            of: child.descriptor, expecting: frames[index].identity, path: path())
        if child.hasMirror, let expected = frames[index].mirrorIdentity {
            frames[index].mirror = try Self.reopenParent(of: child.mirror, expecting: expected, path: path())
        }
    }

    private static func reopenParent(
        of child: CInt, expecting identity: FileIdentity, path: @autoclosure () -> String
    ) throws(SandboxError) -> CInt {
        let fd = try syscall("openat", path: path()) {
            openat(child, "..", O_RDONLY | CSB_O_DIRECTORY | CSB_O_NOFOLLOW | CSB_O_CLOEXEC)
        }
        let owned = OwnedDescriptor(taking: fd)
        guard try FileIdentity(of: owned.rawValue, path: path()) == identity else {
            throw .movedDuringWalk(path())
        }
        return owned.release()
    }
}
