import Dispatch
import Foundation
import Glibc
import SandboxCore
import Synchronization
import SystemPackage
import Testing

// The attack list of docs/research (section 4.3), run in both resolutions: every escape must fail
// with `escapesContainer` and leave everything outside the container exactly as it was.

/// Every public operation the attack matrix runs, each on one path.
enum AttackOperation: String, CaseIterable, Sendable, CustomStringConvertible {
    case read, copyContents
    case writeAtomic, writeInPlace, writeExclusive, writeDurable, importFile, importItem
    case createDirectory, createDirectories
    case remove, removeRecursively, removeContents
    case copyFrom, copyTo, moveFrom, moveTo, moveToReplacing, renameTo
    case list, enumerate, stat, lstat, exists, fileSize, recursiveSize
    case setPermissions, setDates, setExtendedAttribute, readExtendedAttribute, removeExtendedAttribute
    case extendedAttributeNames, setExcludedFromBackup, isExcludedFromBackup
    case openSubroot

    var description: String { rawValue }

    /// Whether the operation acts on a symlink in the last component as itself (replacing,
    /// removing, moving or describing the link) rather than resolving it.
    var actsOnFinalName: Bool {
        switch self {
        case .writeAtomic, .writeExclusive, .writeDurable, .importFile, .importItem, .createDirectory,
            .remove, .removeRecursively, .copyTo, .moveFrom, .moveTo, .moveToReplacing, .renameTo, .lstat:
            true
        default:
            false
        }
    }

    /// Runs the operation on `path`; the other side of two-path operations is the in-container
    /// file `f` (or a fresh in-container name).
    func run(on root: ConfinedRoot, at path: ContainerPath, in tmp: TemporaryDirectory) throws {
        let inside = try cpath("f")
        let payload = Array("written by an attack\n".utf8)
        switch self {
        case .read: _ = try root.readContents(of: path)
        case .copyContents:
            let sink = Glibc.open("/dev/null", O_WRONLY | O_CLOEXEC)
            defer { Glibc.close(sink) }
            try root.copyContents(of: path, to: FileDescriptor(rawValue: sink))
        case .writeAtomic: try root.writeContents(payload, to: path)
        case .writeInPlace: try root.writeContents(payload, to: path, options: [])
        case .writeExclusive: try root.writeContents(payload, to: path, options: [.atomic, .withoutOverwriting])
        case .writeDurable: try root.writeContents(payload, to: path, options: [.atomic, .durable])
        case .importFile: try root.importFile(fromHost: tmp.payload, to: path)
        case .importItem: try root.importItem(fromHost: tmp.payload, to: path)
        case .createDirectory: try root.createDirectory(at: path)
        case .createDirectories: try root.createDirectory(at: path, withIntermediateDirectories: true)
        case .remove: try root.removeItem(at: path)
        case .removeRecursively: try root.removeItem(at: path, recursively: true)
        case .removeContents: try root.removeContents(of: path)
        case .copyFrom: try root.copyItem(from: path, to: cpath("copied"))
        case .copyTo: try root.copyItem(from: inside, to: path)
        case .moveFrom: try root.moveItem(from: path, to: cpath("moved"))
        case .moveTo: try root.moveItem(from: inside, to: path)
        case .moveToReplacing: try root.moveItem(from: inside, to: path, replacingExisting: true)
        case .renameTo: try root.renameItem(at: path, to: "renamed")
        case .list: _ = try root.contentsOfDirectory(at: path)
        case .enumerate: try root.enumerate(at: path, recursive: true, prefetchingAttributes: true) { _ in }
        case .stat: _ = try root.attributes(at: path)
        case .lstat: _ = try root.attributes(at: path, followingSymlink: false)
        case .exists: _ = try root.itemExists(at: path)
        case .fileSize: _ = try root.fileSize(at: path)
        case .recursiveSize: _ = try root.recursiveSize(at: path)
        case .setPermissions: try root.setPermissions(FilePermissions(rawValue: 0o777), at: path)
        case .setDates:
            try root.setDates(
                modification: Date(timeIntervalSince1970: 0), access: Date(timeIntervalSince1970: 0), at: path)
        case .setExtendedAttribute: try root.setExtendedAttribute(named: "user.attack", to: [1, 2, 3], at: path)
        case .readExtendedAttribute: _ = try root.extendedAttribute(named: "user.attack", at: path)
        case .removeExtendedAttribute: try root.removeExtendedAttribute(named: "user.sentinel", at: path)
        case .extendedAttributeNames: _ = try root.extendedAttributeNames(at: path)
        case .setExcludedFromBackup: try root.setExcludedFromBackup(true, at: path)
        case .isExcludedFromBackup: _ = try root.isExcludedFromBackup(at: path)
        case .openSubroot: _ = try root.openSubroot(at: path)
        }
    }
}

/// The keys whose descriptions differ between two snapshots, for messages.
func snapshotDifference(_ before: [String: String], _ after: [String: String]) -> String {
    let keys = Set(before.keys).union(after.keys).sorted()
    return keys.filter { before[$0] != after[$0] }
        .map { "\($0): \(before[$0] ?? "<absent>") => \(after[$0] ?? "<absent>")" }
        .joined(separator: "\n")
}

/// Checks that nothing outside the container changed and the sentinel still holds its contents.
func expectOutsideIntact(
    _ tmp: TemporaryDirectory,
    _ before: [String: String],
    _ label: @autoclosure () -> String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let after = tmp.outsideSnapshot()
    #expect(
        after == before, "\(label()) changed something outside the container:\n\(snapshotDifference(before, after))",
        sourceLocation: sourceLocation)
    #expect(
        TemporaryDirectory.hostRead(tmp.secret) == TemporaryDirectory.secretContents, "\(label()) the sentinel changed",
        sourceLocation: sourceLocation)
}

/// Runs every operation on the path, each in a fresh directory (with `f` and `dir/` in the
/// container, then `setUp`), and checks that it is refused with `escapesContainer` and that
/// nothing outside changed.
///
/// With `finalComponentIsSymlink`, operations that act on a final symlink itself (remove, move,
/// replace, lstat, create-exclusive) may succeed on the link or fail otherwise; they are only
/// required to leave the outside untouched.
func expectConfined(
    _ path: (TemporaryDirectory) -> String,
    _ resolution: ConfinedRoot.Resolution,
    finalComponentIsSymlink: Bool = false,
    operations: [AttackOperation] = AttackOperation.allCases,
    sourceLocation: SourceLocation = #_sourceLocation,
    setUp: (TemporaryDirectory) throws -> Void = { _ in }
) throws {
    for operation in operations {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f")
        try tmp.makeDirectory("dir")
        try setUp(tmp)
        let before = tmp.outsideSnapshot()
        let root = try tmp.root(resolution)
        let pathString = path(tmp)
        let label = "\(operation) '\(pathString.replacingOccurrences(of: "\u{0}", with: "\\0"))' [\(resolution)]"
        if finalComponentIsSymlink && operation.actsOnFinalName {
            do {
                try operation.run(on: root, at: cpath(pathString), in: tmp)
            } catch {
                #expect(error is SandboxError, "\(label): \(error)", sourceLocation: sourceLocation)
            }
        } else {
            expectError(.escapesContainer, label, sourceLocation: sourceLocation) {
                try operation.run(on: root, at: cpath(pathString), in: tmp)
            }
        }
        expectOutsideIntact(tmp, before, label, sourceLocation: sourceLocation)
    }
}

func expectConfined(
    _ path: String,
    _ resolution: ConfinedRoot.Resolution,
    finalComponentIsSymlink: Bool = false,
    operations: [AttackOperation] = AttackOperation.allCases,
    sourceLocation: SourceLocation = #_sourceLocation,
    setUp: (TemporaryDirectory) throws -> Void = { _ in }
) throws {
    try expectConfined(
        { _ in path }, resolution, finalComponentIsSymlink: finalComponentIsSymlink,
        operations: operations, sourceLocation: sourceLocation, setUp: setUp)
}

/// Shared with a background thread in the race tests.
final class RaceControl: @unchecked Sendable {
    let stop = Atomic<Bool>(false)
    let swaps = Atomic<Int>(0)
    let started = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)

    /// Starts `body` on its own thread and waits until it is running.
    func start(_ body: @escaping @Sendable (RaceControl) -> Void) {
        let thread = Thread { [self] in
            started.signal()
            body(self)
            finished.signal()
        }
        thread.start()
        started.wait()
    }

    /// Asks the thread to stop and waits for it.
    func finish() {
        stop.store(true, ordering: .sequentiallyConsistent)
        finished.wait()
    }

    var shouldStop: Bool { stop.load(ordering: .relaxed) }
}

/// Swaps the directory `container/<name>` with a symlink to `target` by renames, over and over,
/// until told to stop (at most `limit` rounds).
///
/// Each round: the directory is renamed aside, a prepared symlink is renamed to its name, the
/// symlink is renamed away again, and the directory is renamed back. Whatever the other thread
/// leaves in the way is moved to `container/graveyard`, which stays inside the container.
func swapDirectoryWithSymlink(
    container: String, name: String, target: String, control: RaceControl, limit: Int = 2_000_000
) {
    let victim = container + "/" + name
    let aside = container + "/" + name + ".aside"
    let link = container + "/" + name + ".link"
    let graveyard = container + "/graveyard"
    var round = 0
    while !control.shouldStop && round < limit {
        round += 1
        if let type = TemporaryDirectory.hostType(link), type != S_IFLNK {
            _ = rename(link, "\(graveyard)/l\(round)")
        }
        if !TemporaryDirectory.hostExists(link) {
            _ = symlink(target, link)
        }
        if TemporaryDirectory.hostExists(aside) {
            _ = rename(aside, "\(graveyard)/a\(round)")
        }
        guard rename(victim, aside) == 0 else { continue }
        if rename(link, victim) == 0 {
            control.swaps.add(1, ordering: .relaxed)
            _ = rename(victim, link)
        }
        _ = rename(aside, victim)
    }
}

@Suite("Confinement attacks")
struct ConfinementAttackTests {
    // MARK: 1–3, 18: lexical escapes, absolute paths, NUL bytes

    @Test("Lexical '..' above the root is refused", arguments: bothResolutions)
    func lexicalDotDot(resolution: ConfinedRoot.Resolution) throws {
        let escapes = [
            "..", "../", "./..", "../outside/secret", "a/../../outside/secret", "a/b/../../../x",
            "dir/../../container/f", "../container/f", "../other/x", ".././container",
        ]
        for string in escapes {
            expectError(.escapesContainer, string) { _ = try ContainerPath(string) }
        }
        for string in ["..", "../outside/secret", "a/../../outside/secret", "a/b/../../../outside/secret"] {
            try expectConfined(string, resolution)
        }
    }

    @Test("Absolute paths are refused", arguments: bothResolutions)
    func absolutePaths(resolution: ConfinedRoot.Resolution) throws {
        for string in ["/etc/passwd", "//etc/passwd", "/", "///", "/tmp"] {
            expectError(.escapesContainer, string) { _ = try ContainerPath(string) }
        }
        // Absolute paths naming the sentinel and the container's own file: still refused.
        try expectConfined({ $0.secret }, resolution)
        try expectConfined({ "/" + $0.secret }, resolution)
        try expectConfined({ $0.container + "/f" }, resolution)
        try expectConfined("/etc/passwd", resolution, operations: [.read, .stat, .list, .copyFrom])
    }

    @Test("A NUL byte is refused, never truncated", arguments: bothResolutions)
    func nulByte(resolution: ConfinedRoot.Resolution) throws {
        for string in ["a\u{0}/../../x", "f\u{0}", "\u{0}", "f\u{0}/../../outside/secret", "dir/\u{0}"] {
            expectError(.escapesContainer, string.replacingOccurrences(of: "\u{0}", with: "\\0")) {
                _ = try ContainerPath(string)
            }
            try expectConfined(string, resolution, operations: [.read, .writeAtomic, .writeInPlace, .remove, .stat])
        }
        expectError(.escapesContainer) { _ = try ContainerPath.validateName("a\u{0}b") }
        expectError(.escapesContainer) { _ = try cpath("dir").appending("x\u{0}") }
        // Renaming to a name with a NUL byte is refused too, and `f` stays.
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f")
        let root = try tmp.root(resolution)
        expectError(.escapesContainer) { try root.renameItem(at: cpath("f"), to: "g\u{0}") }
        expectError(.invalidPath) { try root.renameItem(at: cpath("f"), to: "g\u{0}/../../../outside/secret") }
        #expect(tmp.read("f") == Array("inside\n".utf8))
    }

    // MARK: 4: absolute symlinks

    @Test("An absolute symlink to outside is refused", arguments: bothResolutions)
    func absoluteSymlinkOutside(resolution: ConfinedRoot.Resolution) throws {
        try expectConfined("abs", resolution, finalComponentIsSymlink: true) { tmp in
            try tmp.makeSymlink("abs", to: tmp.secret)
        }
        try expectConfined("absdir/secret", resolution) { tmp in
            try tmp.makeSymlink("absdir", to: tmp.outside)
        }
        try expectConfined("absdir", resolution, finalComponentIsSymlink: true) { tmp in
            try tmp.makeSymlink("absdir", to: tmp.outside)
        }
        try expectConfined(
            "etc", resolution, finalComponentIsSymlink: true, operations: [.read, .stat, .copyFrom, .list]
        ) { tmp in
            try tmp.makeSymlink("etc", to: "/etc/passwd")
        }
    }

    @Test("An absolute symlink back into the container is refused too", arguments: bothResolutions)
    func absoluteSymlinkBackInside(resolution: ConfinedRoot.Resolution) throws {
        try expectConfined("abs", resolution, finalComponentIsSymlink: true) { tmp in
            try tmp.makeSymlink("abs", to: tmp.container + "/f")
        }
        try expectConfined("absdir/g", resolution) { tmp in
            try tmp.makeFile("dir/g")
            try tmp.makeSymlink("absdir", to: tmp.container + "/dir")
        }
        try expectConfined("absroot/f", resolution) { tmp in
            try tmp.makeSymlink("absroot", to: tmp.container)
        }
    }

    // MARK: 5: relative symlinks that escape

    @Test("A relative symlink to the sentinel is refused", arguments: bothResolutions)
    func relativeSymlinkToSentinel(resolution: ConfinedRoot.Resolution) throws {
        try expectConfined("link", resolution, finalComponentIsSymlink: true) { tmp in
            try tmp.makeSymlink("link", to: "../outside/secret")
        }
        // A trailing slash still names the link for operations on the name itself (rm, mv).
        // Writing in place to a path ending in '/' through such a link is refused as an escape.
        try expectConfined(
            "link/", resolution, finalComponentIsSymlink: true,
            operations: AttackOperation.allCases.filter { $0 != .writeInPlace }
        ) { tmp in
            try tmp.makeSymlink("link", to: "../outside/dir")
        }
        let tmp = try TemporaryDirectory()
        try tmp.makeSymlink("link", to: "../outside/dir")
        let root = try tmp.root(resolution)
        let before = tmp.outsideSnapshot()
        expectError(.escapesContainer) { try root.writeContents([1], to: cpath("link/"), options: []) }
        expectOutsideIntact(tmp, before)
    }

    @Test("A relative symlink to an outside directory is refused in a parent component", arguments: bothResolutions)
    func relativeSymlinkDirectoryOut(resolution: ConfinedRoot.Resolution) throws {
        try expectConfined("esc/secret", resolution) { tmp in
            try tmp.makeSymlink("esc", to: "../outside")
        }
        try expectConfined("esc/dir/sub/file2", resolution) { tmp in
            try tmp.makeSymlink("esc", to: "../outside")
        }
        try expectConfined("esc/new", resolution) { tmp in
            try tmp.makeSymlink("esc", to: "../outside")
        }
    }

    @Test("d/link -> ../../ (the container's parent) is refused", arguments: bothResolutions)
    func symlinkToParentOfRoot(resolution: ConfinedRoot.Resolution) throws {
        try expectConfined("d/link", resolution, finalComponentIsSymlink: true) { tmp in
            try tmp.makeSymlink("d/link", to: "../../")
        }
        try expectConfined("d/link/outside/secret", resolution) { tmp in
            try tmp.makeSymlink("d/link", to: "../../")
        }
        try expectConfined("d/link/container/f", resolution) { tmp in
            try tmp.makeSymlink("d/link", to: "../../")
        }
    }

    @Test("A symlink that goes out and comes back in is refused", arguments: bothResolutions)
    func outAndBackIn(resolution: ConfinedRoot.Resolution) throws {
        try expectConfined("link", resolution, finalComponentIsSymlink: true) { tmp in
            try tmp.makeSymlink("link", to: "../container/f")
        }
        try expectConfined("back/f", resolution) { tmp in
            try tmp.makeSymlink("back", to: "../container")
        }
        try expectConfined("dir/back/dir", resolution) { tmp in
            try tmp.makeSymlink("dir/back", to: "../../container")
        }
    }

    // MARK: 6: chains

    @Test("A symlink chain that escapes is refused", arguments: bothResolutions)
    func symlinkChainEscapes(resolution: ConfinedRoot.Resolution) throws {
        let chain: (TemporaryDirectory) throws -> Void = { tmp in
            try tmp.makeDirectory("a")
            try tmp.makeSymlink("a/b", to: "e")
            try tmp.makeSymlink("a/e", to: "../../outside")
            try tmp.makeSymlink("link", to: "a/b/secret")
        }
        try expectConfined("a/b/secret", resolution, setUp: chain)
        try expectConfined("link", resolution, finalComponentIsSymlink: true, setUp: chain)
        // Go's "symlink chain escapes": out of the root and back in by its name.
        try expectConfined("a/b/f", resolution) { tmp in
            try tmp.makeDirectory("a")
            try tmp.makeSymlink("a/b", to: "e")
            try tmp.makeSymlink("a/e", to: "../../container")
        }
    }

    // MARK: 9: magic links

    @Test("Magic links through /proc/self/root are refused", arguments: bothResolutions)
    func magicLinkProcSelfRoot(resolution: ConfinedRoot.Resolution) throws {
        try expectConfined(
            { "proc" + $0.secret }, resolution,
            setUp: { tmp in
                try tmp.makeSymlink("proc", to: "/proc/self/root")
            })
        try expectConfined("rootlink", resolution, finalComponentIsSymlink: true) { tmp in
            try tmp.makeSymlink("rootlink", to: "/proc/self/root" + tmp.secret)
        }
        try expectConfined(
            "cwd", resolution, finalComponentIsSymlink: true, operations: [.read, .list, .stat, .writeInPlace]
        ) { tmp in
            try tmp.makeSymlink("cwd", to: "/proc/self/cwd")
        }
    }

    @Test("Magic links through /proc/self/fd are refused", arguments: bothResolutions)
    func magicLinkProcSelfFd(resolution: ConfinedRoot.Resolution) throws {
        // One descriptor to the sentinel, open for the whole test.
        let probe = try TemporaryDirectory()
        let probeBefore = probe.outsideSnapshot()
        let fd = Glibc.open(probe.secret, O_RDWR | O_CLOEXEC)
        try #require(fd >= 0)
        defer { Glibc.close(fd) }
        try expectConfined("fdlink", resolution, finalComponentIsSymlink: true) { tmp in
            try tmp.makeSymlink("fdlink", to: "/proc/self/fd/\(fd)")
        }
        try expectConfined("fddir/\(fd)", resolution) { tmp in
            try tmp.makeSymlink("fddir", to: "/proc/self/fd")
        }
        // A relative symlink that climbs to /proc: the climb is the escape.
        try expectConfined(
            "rel", resolution, finalComponentIsSymlink: true,
            operations: [.read, .writeInPlace, .stat, .setExtendedAttribute]
        ) { tmp in
            let depth = tmp.container.split(separator: "/").count
            try tmp.makeSymlink("rel", to: String(repeating: "../", count: depth) + "proc/self/fd/\(fd)")
        }
        expectOutsideIntact(probe, probeBefore, "the descriptor's target")
    }

    @Test("A root opened at /proc/self/fd refuses to follow its magic links", arguments: bothResolutions)
    func rootAtProcSelfFd(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        let file = Glibc.open(tmp.secret, O_RDONLY | O_CLOEXEC)
        let directory = Glibc.open(tmp.outside, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        try #require(file >= 0 && directory >= 0)
        defer {
            Glibc.close(file)
            Glibc.close(directory)
        }
        let root = try ConfinedRoot(openingDirectoryAt: "/proc/self/fd", resolution: resolution)
        let refusals: [SandboxError.Code] = [.escapesContainer, .symlinkLoop]
        for (name, operation) in [
            ("\(file)", AttackOperation.read), ("\(file)", .stat), ("\(file)", .copyContents),
            ("\(directory)", .list), ("\(directory)/secret", .read), ("\(directory)/secret", .stat),
        ] {
            let error = #expect(throws: SandboxError.self, "\(operation) \(name)") {
                try operation.run(on: root, at: cpath(name), in: tmp)
            }
            #expect(
                error.map { refusals.contains($0.code) } == true, "\(operation) \(name): \(String(describing: error))")
        }
    }

    // MARK: 10: dangling symlinks

    @Test("Creating or writing through a dangling symlink creates nothing outside", arguments: bothResolutions)
    func danglingSymlinkCreate(resolution: ConfinedRoot.Resolution) throws {
        try expectConfined("new", resolution, finalComponentIsSymlink: true) { tmp in
            try tmp.makeSymlink("new", to: "../outside/created")
        }
        try expectConfined("newdir/x", resolution) { tmp in
            try tmp.makeSymlink("newdir", to: "../outside/newdir")
        }
        try expectConfined("dir/new", resolution, finalComponentIsSymlink: true) { tmp in
            try tmp.makeSymlink("dir/new", to: "../../outside/created")
        }
        // In detail: every write through a link that leads out is refused, atomic or in place,
        // exclusive or not; the link itself is left as it was.
        let tmp = try TemporaryDirectory()
        try tmp.makeSymlink("new", to: "../outside/created")
        let root = try tmp.root(resolution)
        let before = tmp.outsideSnapshot()
        expectError(.escapesContainer, "in place") {
            try root.writeContents(Array("x".utf8), to: cpath("new"), options: [])
        }
        expectError(.escapesContainer, "in place, durable") {
            try root.writeContents(Array("x".utf8), to: cpath("new"), options: [.durable])
        }
        expectError(.escapesContainer, "atomic") { try root.writeContents(Array("x".utf8), to: cpath("new")) }
        expectError(.escapesContainer, "exclusive") {
            try root.writeContents(Array("x".utf8), to: cpath("new"), options: [.atomic, .withoutOverwriting])
        }
        expectError(.escapesContainer, "exclusive in place") {
            try root.writeContents(Array("x".utf8), to: cpath("new"), options: [.withoutOverwriting])
        }
        expectError(.alreadyExists, "mkdir") { try root.createDirectory(at: cpath("new")) }
        expectError(.escapesContainer, "mkdir -p") {
            try root.createDirectory(at: cpath("new"), withIntermediateDirectories: true)
        }
        expectError(.escapesContainer, "mkdir -p below") {
            try root.createDirectory(at: cpath("new/sub"), withIntermediateDirectories: true)
        }
        #expect(TemporaryDirectory.hostType(tmp.host("new")) == S_IFLNK)
        #expect(!TemporaryDirectory.hostExists(tmp.outside + "/created"))
        expectOutsideIntact(tmp, before)
    }

    // MARK: 21: another container

    @Test("Another container is out of reach lexically", arguments: bothResolutions)
    func crossContainerLexical(resolution: ConfinedRoot.Resolution) throws {
        try expectConfined("../other/x", resolution)
        try expectConfined("../other/new", resolution)
        try expectConfined("dir/../../other", resolution)
    }

    @Test("Another container is out of reach through a symlink", arguments: bothResolutions)
    func crossContainerSymlink(resolution: ConfinedRoot.Resolution) throws {
        try expectConfined("o/x", resolution) { tmp in try tmp.makeSymlink("o", to: "../other") }
        try expectConfined("o/new", resolution) { tmp in try tmp.makeSymlink("o", to: "../other") }
        try expectConfined("o", resolution, finalComponentIsSymlink: true) { tmp in
            try tmp.makeSymlink("o", to: "../other")
        }
        try expectConfined("ox", resolution, finalComponentIsSymlink: true) { tmp in
            try tmp.makeSymlink("ox", to: "../other/x")
        }
        try expectConfined("abs/x", resolution) { tmp in try tmp.makeSymlink("abs", to: tmp.other) }
    }

    // MARK: 13: rename across the boundary

    @Test("Moves and renames across the boundary are refused on both sides", arguments: bothResolutions)
    func moveAcrossBoundary(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f")
        try tmp.makeSymlink("esc", to: "../outside")
        try tmp.makeSymlink("o", to: "../other")
        try tmp.makeSymlink("link", to: "../outside/secret")
        let root = try tmp.root(resolution)
        let before = tmp.outsideSnapshot()
        for replacing in [false, true] {
            let cases: [(String, String)] = [
                ("f", "../x"), ("../outside/secret", "stolen"), ("esc/secret", "stolen"), ("f", "esc/x"),
                ("f", "esc/secret"), ("f", "o/x"), ("o/x", "mine"), ("esc/dir", "stolen-dir"), ("f", "esc/dir/sub"),
                ("f", "../other/y"),
            ]
            for (source, destination) in cases {
                expectError(.escapesContainer, "move \(source) -> \(destination) replacing=\(replacing)") {
                    try root.moveItem(from: cpath(source), to: cpath(destination), replacingExisting: replacing)
                }
            }
        }
        expectError(.escapesContainer) { try root.renameItem(at: cpath("esc/secret"), to: "y") }
        expectError(.escapesContainer) { try root.renameItem(at: cpath("o/x"), to: "y") }
        // A new name is a single name: '..' and '/' are refused before any file system call.
        expectError(.invalidPath) { try root.renameItem(at: cpath("f"), to: "../x") }
        expectError(.invalidPath) { try root.renameItem(at: cpath("f"), to: "..") }
        expectError(.invalidPath) { try root.renameItem(at: cpath("f"), to: "a/b") }
        #expect(tmp.read("f") == Array("inside\n".utf8))
        expectOutsideIntact(tmp, before)
    }

    // MARK: copy

    @Test("Copies from or to an escaping path are refused; copied links stay links", arguments: bothResolutions)
    func copyAcrossBoundary(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f")
        try tmp.makeSymlink("esc", to: "../outside")
        try tmp.makeSymlink("o", to: "../other")
        try tmp.makeSymlink("link", to: "../outside/secret")
        try tmp.makeSymlink("abs", to: tmp.outside)
        try tmp.makeFile("tree/inner", "inner\n")
        try tmp.makeSymlink("tree/out", to: "../../outside/secret")
        try tmp.makeSymlink("tree/outdir", to: "../../outside")
        let root = try tmp.root(resolution)
        let before = tmp.outsideSnapshot()
        for (source, destination) in [
            ("esc/secret", "c1"), ("link", "c2"), ("esc", "c3"), ("o", "c4"), ("o/x", "c5"),
            ("abs", "c6"), ("f", "esc/copy"), ("f", "o/copy"), ("tree", "esc/tree"),
            ("f", "../outside/copy"), ("../outside/secret", "c7"), ("esc/dir", "c8"),
        ] {
            expectError(.escapesContainer, "copy \(source) -> \(destination)") {
                try root.copyItem(from: cpath(source), to: cpath(destination))
            }
            #expect(
                !TemporaryDirectory.hostExists(tmp.host(destination)), "copy \(source) -> \(destination) left something"
            )
        }
        // Symlinks inside a copied tree are copied as links, never followed.
        #expect(try root.copyItem(from: cpath("tree"), to: cpath("tree2")) == 4)
        #expect(TemporaryDirectory.hostType(tmp.host("tree2/out")) == S_IFLNK)
        #expect(TemporaryDirectory.hostType(tmp.host("tree2/outdir")) == S_IFLNK)
        #expect(
            try FileManager.default.destinationOfSymbolicLink(atPath: tmp.host("tree2/out")) == "../../outside/secret")
        expectError(.escapesContainer) { _ = try root.readContents(of: cpath("tree2/out")) }
        expectError(.escapesContainer) { _ = try root.contentsOfDirectory(at: cpath("tree2/outdir")) }
        expectOutsideIntact(tmp, before)
    }

    // MARK: mkdir, remove, list, stat, xattr through escaping links

    @Test("mkdir through an escaping symlink is refused", arguments: bothResolutions)
    func mkdirThroughEscapingSymlink(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeSymlink("esc", to: "../outside")
        try tmp.makeSymlink("d/up", to: "../../")
        try tmp.makeSymlink("abs", to: tmp.outside)
        let root = try tmp.root(resolution)
        let before = tmp.outsideSnapshot()
        for path in ["esc/new", "esc/dir/new", "d/up/outside/new", "abs/new", "esc/new/deeper/still"] {
            expectError(.escapesContainer, "mkdir \(path)") { try root.createDirectory(at: cpath(path)) }
            expectError(.escapesContainer, "mkdir -p \(path)") {
                try root.createDirectory(at: cpath(path), withIntermediateDirectories: true)
            }
        }
        expectError(.escapesContainer, "mkdir -p esc") {
            try root.createDirectory(at: cpath("esc"), withIntermediateDirectories: true)
        }
        expectOutsideIntact(tmp, before)
    }

    @Test("Removal through an escaping parent component is refused", arguments: bothResolutions)
    func removeThroughEscapingParent(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeSymlink("esc", to: "../outside")
        try tmp.makeDirectory("a")
        try tmp.makeSymlink("a/b", to: "e")
        try tmp.makeSymlink("a/e", to: "../../outside")
        try tmp.makeSymlink("abs", to: tmp.outside)
        let root = try tmp.root(resolution)
        let before = tmp.outsideSnapshot()
        for path in [
            "esc/secret", "esc/dir", "esc/dir/sub/file2", "a/b/secret", "a/b/dir", "abs/secret", "esc/missing",
            "esc/dir/",
        ] {
            expectError(.escapesContainer, "rm \(path)") { try root.removeItem(at: cpath(path)) }
            expectError(.escapesContainer, "rm -r \(path)") { try root.removeItem(at: cpath(path), recursively: true) }
        }
        for path in ["esc", "esc/dir", "a/b", "abs", "esc/"] {
            expectError(.escapesContainer, "empty \(path)") { try root.removeContents(of: cpath(path)) }
        }
        expectOutsideIntact(tmp, before)
    }

    @Test("Listing an escaping symlink directory is refused", arguments: bothResolutions)
    func listEscapingDirectory(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeSymlink("esc", to: "../outside")
        try tmp.makeSymlink("d/up", to: "../../")
        try tmp.makeSymlink("abs", to: tmp.outside)
        try tmp.makeSymlink("o", to: "../other")
        let root = try tmp.root(resolution)
        for path in ["esc", "esc/", "esc/dir", "d/up", "abs", "o", "d/up/outside"] {
            let p = try cpath(path)
            expectError(.escapesContainer, "ls \(path)") { _ = try root.contentsOfDirectory(at: p) }
            expectError(.escapesContainer, "ls -l \(path)") {
                _ = try root.contentsOfDirectory(at: p, prefetchingAttributes: true)
            }
            expectError(.escapesContainer, "find \(path)") { try root.enumerate(at: p, recursive: true) { _ in } }
            expectError(.escapesContainer, "dirs \(path)") { _ = try root.subdirectoryNames(at: p) }
            expectError(.escapesContainer, "dir paths \(path)") { _ = try root.subdirectoryPaths(at: p) }
            expectError(.escapesContainer, "files \(path)") { _ = try root.fileNames(at: p) }
            expectError(.escapesContainer, "file paths \(path)") { _ = try root.filePaths(at: p) }
            expectError(.escapesContainer, "du \(path)") { _ = try root.recursiveSize(at: p) }
        }
        // Walking the container reports the links as links and never descends through them.
        var seen: [String: ItemType] = [:]
        try root.enumerate(at: .root, recursive: true) { entry in seen[entry.path.description] = entry.type }
        #expect(seen == ["esc": .symlink, "d": .directory, "d/up": .symlink, "abs": .symlink, "o": .symlink])
        let size = try #require(try root.recursiveSize(at: .root))
        #expect(size.fileCount == 4)
        #expect(size.directoryCount == 1)
    }

    @Test("stat of escaping paths is an error, never 'absent'", arguments: bothResolutions)
    func statEscapingPaths(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeSymlink("link", to: "../outside/secret")
        try tmp.makeSymlink("esc", to: "../outside")
        try tmp.makeSymlink("abs", to: tmp.secret)
        try tmp.makeSymlink("dangling", to: "../outside/missing")
        let root = try tmp.root(resolution)
        for path in ["link", "esc", "esc/secret", "esc/missing", "abs", "dangling", "esc/dir/sub", "link/"] {
            let p = try cpath(path)
            expectError(.escapesContainer, "stat \(path)") { _ = try root.attributes(at: p) }
            expectError(.escapesContainer, "exists \(path)") { _ = try root.itemExists(at: p) }
            expectError(.escapesContainer, "file exists \(path)") { _ = try root.fileExists(at: p) }
            expectError(.escapesContainer, "directory exists \(path)") { _ = try root.directoryExists(at: p) }
            expectError(.escapesContainer, "size \(path)") { _ = try root.fileSize(at: p) }
        }
        // lstat of a final link describes the link itself; through an escaping parent it is refused.
        for path in ["link", "esc", "abs", "dangling"] {
            let attributes = try #require(try root.attributes(at: cpath(path), followingSymlink: false))
            #expect(attributes.type == .symlink, "lstat \(path)")
        }
        expectError(.escapesContainer) { _ = try root.attributes(at: cpath("esc/secret"), followingSymlink: false) }
    }

    @Test("Attributes and extended attributes cannot be set through an escaping link", arguments: bothResolutions)
    func attributesThroughEscapingLink(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeSymlink("link", to: "../outside/secret")
        try tmp.makeSymlink("esc", to: "../outside")
        try tmp.makeSymlink("abs", to: tmp.secret)
        // A marker on the sentinel that an attack could try to remove.
        let outsideRoot = try ConfinedRoot(openingDirectoryAt: tmp.outside, resolution: resolution)
        try outsideRoot.setExtendedAttribute(named: "user.sentinel", to: Array("keep".utf8), at: cpath("secret"))
        let root = try tmp.root(resolution)
        let before = tmp.outsideSnapshot()
        for path in ["link", "esc", "esc/secret", "abs", "esc/dir"] {
            let p = try cpath(path)
            expectError(.escapesContainer, "setxattr \(path)") {
                try root.setExtendedAttribute(named: "user.attack", to: [1], at: p)
            }
            expectError(.escapesContainer, "removexattr \(path)") {
                try root.removeExtendedAttribute(named: "user.sentinel", at: p)
            }
            expectError(.escapesContainer, "getxattr \(path)") {
                _ = try root.extendedAttribute(named: "user.sentinel", at: p)
            }
            expectError(.escapesContainer, "listxattr \(path)") { _ = try root.extendedAttributeNames(at: p) }
            expectError(.escapesContainer, "exclude \(path)") { try root.setExcludedFromBackup(true, at: p) }
            expectError(.escapesContainer, "include \(path)") { try root.setExcludedFromBackup(false, at: p) }
            expectError(.escapesContainer, "chmod \(path)") {
                try root.setPermissions(FilePermissions(rawValue: 0o777), at: p)
            }
            expectError(.escapesContainer, "touch \(path)") {
                try root.setDates(modification: Date(timeIntervalSince1970: 1), at: p)
            }
        }
        expectOutsideIntact(tmp, before)
        #expect(try outsideRoot.extendedAttribute(named: "user.sentinel", at: cpath("secret")) == Array("keep".utf8))
        #expect(try outsideRoot.extendedAttribute(named: "user.attack", at: cpath("secret")) == nil)
    }

    // MARK: 11: the last component is a symlink that points out

    @Test("Removing a symlink that points outside removes the link only", arguments: bothResolutions)
    func removeOutsideSymlinkRemovesLinkOnly(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeSymlink("link", to: "../outside/secret")
        try tmp.makeSymlink("esc", to: "../outside")
        try tmp.makeSymlink("abs", to: tmp.outside)
        try tmp.makeSymlink("d/esc", to: "../../outside")
        try tmp.makeSymlink("d/link", to: "../../outside/secret")
        try tmp.makeSymlink("e/esc", to: "../../outside/dir")
        try tmp.makeSymlink("g/esc", to: "../../outside/dir")
        let root = try tmp.root(resolution)
        let before = tmp.outsideSnapshot()
        #expect(try root.removeItem(at: cpath("link")) == 1)
        #expect(try root.removeItem(at: cpath("esc"), recursively: true) == 1)
        #expect(try root.removeItem(at: cpath("abs"), recursively: true) == 1)
        #expect(try root.removeItem(at: cpath("d"), recursively: true) == 3)
        #expect(try root.removeContents(of: cpath("e")) == 1)
        #expect(try root.removeItem(at: cpath("g/esc"), recursively: false) == 1)
        for name in ["link", "esc", "abs", "d", "e/esc", "g/esc"] {
            #expect(!TemporaryDirectory.hostExists(tmp.host(name)), "\(name) is still there")
        }
        #expect(TemporaryDirectory.hostType(tmp.host("e")) == S_IFDIR)
        // Moving or renaming such a link moves the link.
        try tmp.makeSymlink("link2", to: "../outside/secret")
        try root.renameItem(at: cpath("link2"), to: "link3")
        try root.moveItem(from: cpath("link3"), to: cpath("e/link4"))
        #expect(TemporaryDirectory.hostType(tmp.host("e/link4")) == S_IFLNK)
        expectOutsideIntact(tmp, before)
    }

    // MARK: 8: loops

    @Test("A self-referencing symlink is a loop, not a hang", arguments: bothResolutions)
    func symlinkLoopSelf(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeSymlink("a", to: "a")
        try tmp.makeSymlink("d/a", to: "../d/a")
        let root = try tmp.root(resolution)
        for path in ["a", "a/x", "a/", "d/a", "d/a/x"] {
            expectLoop(root, path)
        }
        #expect(try root.removeItem(at: cpath("a")) == 1)
        #expect(!TemporaryDirectory.hostExists(tmp.host("a")))
    }

    @Test("A two-link cycle is a loop, not a hang", arguments: bothResolutions)
    func symlinkLoopPair(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeSymlink("a", to: "b")
        try tmp.makeSymlink("b", to: "a")
        try tmp.makeSymlink("x/p", to: "../y/q")
        try tmp.makeSymlink("y/q", to: "../x/p")
        let root = try tmp.root(resolution)
        for path in ["a", "b", "a/x", "x/p", "y/q/z"] {
            expectLoop(root, path)
        }
    }

    @Test("A chain longer than 40 links is a loop; a shorter one resolves", arguments: bothResolutions)
    func symlinkChainTooLong(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f", "end of chain\n")
        for index in 0..<45 {
            try tmp.makeSymlink("long\(index)", to: index == 44 ? "f" : "long\(index + 1)")
        }
        for index in 0..<30 {
            try tmp.makeSymlink("short\(index)", to: index == 29 ? "f" : "short\(index + 1)")
        }
        let root = try tmp.root(resolution)
        expectLoop(root, "long0")
        #expect(try root.readContents(of: cpath("short0")) == Array("end of chain\n".utf8))
        #expect(try root.readContents(of: cpath("long10")) == Array("end of chain\n".utf8))
    }

    private func expectLoop(_ root: ConfinedRoot, _ path: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let started = ContinuousClock.now
        expectError(.symlinkLoop, "read \(path)", sourceLocation: sourceLocation) {
            _ = try root.readContents(of: cpath(path))
        }
        expectError(.symlinkLoop, "stat \(path)", sourceLocation: sourceLocation) {
            _ = try root.attributes(at: cpath(path))
        }
        expectError(.symlinkLoop, "ls \(path)", sourceLocation: sourceLocation) {
            _ = try root.contentsOfDirectory(at: cpath(path))
        }
        if !path.hasSuffix("/") {  // (a write to 'x/' is EINVAL before any lookup)
            expectError(.symlinkLoop, "write \(path)", sourceLocation: sourceLocation) {
                try root.writeContents([1], to: cpath(path), options: [])
            }
        }
        expectError(.symlinkLoop, "chmod \(path)", sourceLocation: sourceLocation) {
            try root.setPermissions(FilePermissions(rawValue: 0o600), at: cpath(path))
        }
        #expect(
            ContinuousClock.now - started < .seconds(10), "resolving \(path) took too long",
            sourceLocation: sourceLocation)
    }

    // MARK: 2, 7: what must keep working

    @Test("'..' that stays inside resolves", arguments: bothResolutions)
    func legitimateDotDot(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f", "the f\n")
        try tmp.makeDirectory("a/b")
        let root = try tmp.root(resolution)
        for path in ["a/../f", "a/b/../../f", "./f", "a/./b/.././../f", "a/b/../../a/../f"] {
            #expect(try root.readContents(of: cpath(path)) == Array("the f\n".utf8), "\(path)")
        }
        try root.writeContents(Array("g".utf8), to: cpath("a/b/../../g"))
        #expect(tmp.read("g") == Array("g".utf8))
        #expect(try root.createDirectory(at: cpath("a/../h")) == 1)
        #expect(TemporaryDirectory.hostType(tmp.host("h")) == S_IFDIR)
        #expect(try root.removeItem(at: cpath("a/b/../../g")) == 1)
        #expect(try root.attributes(at: cpath("a/b/../.."))?.type == .directory)
        #expect(Set(try root.contentsOfDirectory(at: cpath("a/b/..")).map(\.name)) == ["b"])
    }

    @Test("Relative symlinks inside the container resolve", arguments: bothResolutions)
    func legitimateRelativeSymlinks(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f", "the f\n")
        try tmp.makeFile("dir/g", "the g\n")
        try tmp.makeSymlink("link", to: "f")
        try tmp.makeSymlink("ldir", to: "dir")
        try tmp.makeSymlink("dir/up", to: "../f")
        try tmp.makeSymlink("viadot", to: "dir/../f")
        let root = try tmp.root(resolution)
        #expect(try root.readContents(of: cpath("link")) == Array("the f\n".utf8))
        #expect(try root.readContents(of: cpath("dir/up")) == Array("the f\n".utf8))
        #expect(try root.readContents(of: cpath("viadot")) == Array("the f\n".utf8))
        #expect(try root.readContents(of: cpath("ldir/g")) == Array("the g\n".utf8))
        #expect(try root.attributes(at: cpath("link"))?.inode == TemporaryDirectory.hostInode(tmp.host("f")))
        try root.writeContents(Array("new".utf8), to: cpath("ldir/new"))
        #expect(tmp.read("dir/new") == Array("new".utf8))
        // Writing in place goes through the link to its target.
        try root.writeContents(Array("through".utf8), to: cpath("link"), options: [])
        #expect(tmp.read("f") == Array("through".utf8))
        #expect(TemporaryDirectory.hostType(tmp.host("link")) == S_IFLNK)
        #expect(Set(try root.contentsOfDirectory(at: cpath("ldir")).map(\.name)) == ["g", "new", "up"])
        try root.setExtendedAttribute(named: "user.ok", to: [7], at: cpath("link"))
        #expect(try root.extendedAttribute(named: "user.ok", at: cpath("f")) == [7])
    }

    @Test("A symlink chain that stays inside resolves", arguments: bothResolutions)
    func legitimateChain(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f", "the f\n")
        try tmp.makeDirectory("a")
        try tmp.makeSymlink("a/b", to: "e")
        try tmp.makeSymlink("a/e", to: "../f")
        try tmp.makeSymlink("top", to: "a/b")
        // Go's "symlink chain": c -> g/h/i, g/h/i -> .. (so c is g).
        try tmp.makeDirectory("g/h")
        try tmp.makeSymlink("c", to: "g/h/i")
        try tmp.makeSymlink("g/h/i", to: "..")
        let root = try tmp.root(resolution)
        #expect(try root.readContents(of: cpath("a/b")) == Array("the f\n".utf8))
        #expect(try root.readContents(of: cpath("top")) == Array("the f\n".utf8))
        #expect(try root.contentsOfDirectory(at: cpath("c")).map(\.name) == ["h"])
        #expect(try root.attributes(at: cpath("c"))?.inode == TemporaryDirectory.hostInode(tmp.host("g")))
        #expect(try root.attributes(at: cpath("c/h/i/h"))?.inode == TemporaryDirectory.hostInode(tmp.host("g/h")))
    }

    @Test("Directory symlinks (link -> dir/, link -> b/.) resolve", arguments: bothResolutions)
    func legitimateDirectorySymlinks(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("dir/g", "the g\n")
        try tmp.makeSymlink("slash", to: "dir/")
        try tmp.makeSymlink("dot", to: "dir/.")
        let root = try tmp.root(resolution)
        let inode = TemporaryDirectory.hostInode(tmp.host("dir"))
        for path in ["slash", "slash/", "dot", "dot/", "slash/.", "dot/../dir"] {
            #expect(try root.contentsOfDirectory(at: cpath(path)).map(\.name) == ["g"], "\(path)")
            #expect(try root.attributes(at: cpath(path))?.inode == inode, "\(path)")
        }
        #expect(try root.readContents(of: cpath("slash/g")) == Array("the g\n".utf8))
        try root.writeContents(Array("h".utf8), to: cpath("dot/h"))
        #expect(tmp.read("dir/h") == Array("h".utf8))
    }

    @Test("'..' after a symlink is resolved physically", arguments: bothResolutions)
    func physicalDotDot(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("t", "root t\n")
        try tmp.makeFile("b/t", "b t\n")
        try tmp.makeDirectory("b/c")
        try tmp.makeSymlink("a", to: "b/c")
        let root = try tmp.root(resolution)
        #expect(try root.readContents(of: cpath("a/../t")) == Array("b t\n".utf8))
        #expect(try root.attributes(at: cpath("a/.."))?.inode == TemporaryDirectory.hostInode(tmp.host("b")))
        #expect(try root.readContents(of: cpath("a/../c/../t")) == Array("b t\n".utf8))
    }

    // MARK: subroots, moved roots

    @Test("A subroot is confined to its own directory", arguments: bothResolutions)
    func subrootConfinement(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f", "container f\n")
        try tmp.makeFile("dir/g", "the g\n")
        try tmp.makeSymlink("dir/up", to: "..")
        try tmp.makeSymlink("dir/inner", to: "g")
        try tmp.makeSymlink("dir/abs", to: tmp.container + "/dir/g")
        let root = try tmp.root(resolution)
        let sub = try root.openSubroot(at: cpath("dir"))
        #expect(sub.resolution == resolution)
        #expect(try sub.readContents(of: cpath("inner")) == Array("the g\n".utf8))
        expectError(.escapesContainer) { _ = try sub.readContents(of: cpath("../f")) }
        expectError(.escapesContainer) { _ = try sub.readContents(of: cpath("up/f")) }
        expectError(.escapesContainer) { _ = try sub.attributes(at: cpath("up")) }
        expectError(.escapesContainer) { _ = try sub.readContents(of: cpath("abs")) }
        expectError(.escapesContainer) { try sub.writeContents([1], to: cpath("up/pwned")) }
        expectError(.escapesContainer) { _ = try sub.openSubroot(at: cpath("up")) }
        #expect(!TemporaryDirectory.hostExists(tmp.host("pwned")))
        #expect(try sub.removeItem(at: cpath("up")) == 1)
        #expect(tmp.read("f") == Array("container f\n".utf8))
    }

    @Test("A root follows its directory when the directory is moved", arguments: bothResolutions)
    func rootDirectoryMoved(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f", "original\n")
        let root = try tmp.root(resolution)
        let moved = tmp.path + "/container-moved"
        try #require(rename(tmp.container, moved) == 0)
        try TemporaryDirectory.hostMakeDirectory(tmp.container)
        try TemporaryDirectory.hostWrite(tmp.container + "/f", Array("impostor\n".utf8))
        #expect(try root.readContents(of: cpath("f")) == Array("original\n".utf8))
        try root.writeContents(Array("new".utf8), to: cpath("g"))
        #expect(TemporaryDirectory.hostRead(moved + "/g") == Array("new".utf8))
        #expect(!TemporaryDirectory.hostExists(tmp.container + "/g"))
        #expect(try root.removeItem(at: cpath("f")) == 1)
        #expect(TemporaryDirectory.hostRead(tmp.container + "/f") == Array("impostor\n".utf8))
    }

    // MARK: 15, 16: races

    @Test("Recursive removal racing a directory/symlink swap never touches the outside", arguments: bothResolutions)
    func raceSwapDuringRecursiveRemoval(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeDirectory("graveyard")
        // Names that mirror the outside tree, so an escaping removal would hit real files.
        let tree = ["secret", "dir/file1", "dir/sub/file2", "dir/extra"]
        let root = try tmp.root(resolution)
        let before = tmp.outsideSnapshot()
        let control = RaceControl()
        let container = tmp.container
        control.start { control in
            swapDirectoryWithSymlink(container: container, name: "victim", target: "../outside", control: control)
        }
        let deadline = ContinuousClock.now + .seconds(3)
        var iterations = 0
        var removed = 0
        var refusals = 0
        while iterations < 200 && ContinuousClock.now < deadline {
            iterations += 1
            _ = try? root.createDirectory(at: cpath("victim/dir/sub"), withIntermediateDirectories: true)
            for file in tree {
                do throws(SandboxError) {
                    try root.writeContents(Array("victim \(iterations)\n".utf8), to: cpath("victim/" + file))
                } catch  where error.code == .escapesContainer {
                    refusals += 1
                } catch {}
            }
            do throws(SandboxError) {
                if iterations % 3 == 0 {
                    removed += try root.removeContents(of: cpath("victim"))
                } else {
                    removed += try root.removeItem(at: cpath("victim"), recursively: true)
                }
            } catch  where error.code == .escapesContainer {
                refusals += 1
            } catch {}
        }
        control.finish()
        #expect(control.swaps.load(ordering: .relaxed) > 0, "the swapper never swapped")
        #expect(iterations > 0)
        expectOutsideIntact(tmp, before, "after \(iterations) rounds (\(removed) removed, \(refusals) refused)")
        for file in ["secret", "dir/file1", "dir/sub/file2"] {
            #expect(TemporaryDirectory.hostExists(tmp.outside + "/" + file), "outside/\(file) was removed")
        }
        #expect(!TemporaryDirectory.hostExists(tmp.outside + "/dir/extra"))
    }

    @Test("Reads racing a directory/symlink swap never return outside contents", arguments: bothResolutions)
    func raceSwapDuringReads(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeDirectory("graveyard")
        try tmp.makeFile("victim/secret", "inside\n")
        let root = try tmp.root(resolution)
        let outsideInode = TemporaryDirectory.hostInode(tmp.secret)
        let control = RaceControl()
        let container = tmp.container
        control.start { control in
            swapDirectoryWithSymlink(container: container, name: "victim", target: "../outside", control: control)
        }
        let deadline = ContinuousClock.now + .seconds(3)
        var iterations = 0
        var insideReads = 0
        var leaks: [String] = []
        let path = try cpath("victim/secret")
        while iterations < 2000 && ContinuousClock.now < deadline {
            iterations += 1
            if let bytes = try? root.readContents(of: path) {
                if bytes == TemporaryDirectory.secretContents { leaks.append("read") } else { insideReads += 1 }
            }
            if let inode = try? root.attributes(at: path)?.inode, inode == outsideInode { leaks.append("stat") }
            if let names = try? root.contentsOfDirectory(at: cpath("victim")).map(\.name), names.contains("dir") {
                leaks.append("list")
            }
        }
        control.finish()
        #expect(leaks.isEmpty, "outside reached: \(leaks.prefix(10)) in \(iterations) rounds")
        #expect(control.swaps.load(ordering: .relaxed) > 0, "the swapper never swapped")
    }

    @Test("'..' lookups racing a directory rename never leave the root", arguments: bothResolutions)
    func raceRenameDuringDotDotLookup(resolution: ConfinedRoot.Resolution) throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f", "inside\n")
        try tmp.makeDirectory("a/b/c/d")
        // What the path would name if '..' were followed after `c` moved up a level.
        try TemporaryDirectory.hostWrite(tmp.path + "/f", TemporaryDirectory.secretContents)
        let root = try tmp.root(resolution)
        let control = RaceControl()
        let deep = tmp.host("a/b/c")
        let shallow = tmp.host("a/c")
        control.start { control in
            var rounds = 0
            while !control.shouldStop && rounds < 2_000_000 {
                rounds += 1
                if rename(deep, shallow) == 0 {
                    control.swaps.add(1, ordering: .relaxed)
                    _ = rename(shallow, deep)
                }
            }
        }
        let path = try cpath("a/b/c/d/../../../../f")
        let deadline = ContinuousClock.now + .seconds(3)
        var iterations = 0
        var leaks = 0
        var successes = 0
        while iterations < 5000 && ContinuousClock.now < deadline {
            iterations += 1
            if let bytes = try? root.readContents(of: path) {
                if bytes == TemporaryDirectory.secretContents { leaks += 1 } else { successes += 1 }
            }
        }
        control.finish()
        #expect(leaks == 0, "read the file above the root \(leaks) times in \(iterations) rounds")
        #expect(control.swaps.load(ordering: .relaxed) > 0, "the renamer never renamed")
    }

    // MARK: 24: differential

    /// The result of one resolution, comparable across modes.
    enum Outcome: Equatable, CustomStringConvertible {
        case value(String)
        case error(SandboxError.Code)

        init(_ body: () throws -> String) {
            do {
                self = .value(try body())
            } catch let error as SandboxError {
                self = .error(error.code)
            } catch {
                self = .value("unexpected error \(error)")
            }
        }

        var description: String {
            switch self {
            case .value(let value): value
            case .error(let code): "[\(code)]"
            }
        }
    }

    @Test("openat2 and the manual walk resolve every path to the same inode or the same error")
    func differentialResolution() throws {
        let tmp = try TemporaryDirectory()
        try tmp.makeFile("f", "the f\n")
        try tmp.makeFile("dir/g", "the g\n")
        try tmp.makeDirectory("dir/sub")
        try tmp.makeDirectory("b/c")
        try tmp.makeFile("b/t", "b t\n")
        try tmp.makeSymlink("link-f", to: "f")
        try tmp.makeSymlink("link-dir", to: "dir")
        try tmp.makeSymlink("link-dir-slash", to: "dir/")
        try tmp.makeSymlink("link-dot", to: "dir/.")
        try tmp.makeSymlink("link-f-slash", to: "f/")
        try tmp.makeSymlink("a", to: "b/c")
        try tmp.makeSymlink("dir/up", to: "../f")
        try tmp.makeSymlink("dir/sub/upup", to: "../..")
        try tmp.makeSymlink("chain1", to: "chain2")
        try tmp.makeSymlink("chain2", to: "dir/sub/upup/link-f")
        try tmp.makeSymlink("dangling", to: "missing")
        try tmp.makeSymlink("loop", to: "loop")
        try tmp.makeSymlink("esc", to: "../outside")
        try tmp.makeSymlink("abs", to: tmp.container + "/f")
        try tmp.makeSymlink("dir/esc", to: "../../outside/secret")
        try #require(link(tmp.host("f"), tmp.host("hard")) == 0)
        try #require(mkfifo(tmp.host("fifo"), 0o600) == 0)
        let fast = try tmp.root(.openat2)
        let slow = try tmp.root(.manualWalk)
        let paths = [
            ".", "f", "f/", "dir", "dir/", "dir/g", "dir/g/", "dir/sub", "dir/..", "dir/../f", "dir/sub/../../f",
            "link-f", "link-f/", "link-dir", "link-dir/", "link-dir/g", "link-dir/../f", "link-dir-slash",
            "link-dir-slash/g", "link-dot", "link-dot/g", "link-f-slash", "link-f-slash/", "link-f-slash/x", "a",
            "a/..", "a/../t",
            "a/../c/../t", "dir/up", "dir/sub/upup", "dir/sub/upup/f", "dir/sub/upup/dir/sub/upup/link-dir/g",
            "chain1", "dangling", "dangling/", "dangling/x", "missing", "missing/x", "f/x", "link-f/x", "loop",
            "loop/x", "esc", "esc/secret", "abs", "dir/esc", "dir/esc/x", "fifo", "fifo/", "hard",
        ]
        for string in paths {
            let path = try cpath(string)
            for follow in [true, false] {
                let outcomes = [fast, slow].map { root in
                    Outcome {
                        try root.attributes(at: path, followingSymlink: follow).map { "inode \($0.inode) \($0.type)" }
                            ?? "absent"
                    }
                }
                #expect(
                    outcomes[0] == outcomes[1],
                    "attributes('\(string)', following: \(follow)): openat2 \(outcomes[0]) vs walk \(outcomes[1])")
            }
            let reads = [fast, slow].map { root in Outcome { try root.readContents(of: path).text } }
            #expect(reads[0] == reads[1], "read '\(string)': openat2 \(reads[0]) vs walk \(reads[1])")
            let listings = [fast, slow].map { root in
                Outcome { try root.contentsOfDirectory(at: path).map(\.name).sorted().joined(separator: ",") }
            }
            #expect(listings[0] == listings[1], "list '\(string)': openat2 \(listings[0]) vs walk \(listings[1])")
        }
        // Spot checks that the shared answers are the right ones.
        for root in [fast, slow] {
            #expect(Outcome({ try root.readContents(of: cpath("a/../t")).text }) == .value("b t\n"))
            #expect(Outcome({ try root.readContents(of: cpath("chain1")).text }) == .value("the f\n"))
            #expect(Outcome({ try root.readContents(of: cpath("hard")).text }) == .value("the f\n"))
            #expect(Outcome({ try root.readContents(of: cpath("esc/secret")).text }) == .error(.escapesContainer))
            #expect(Outcome({ try root.readContents(of: cpath("abs")).text }) == .error(.escapesContainer))
            #expect(Outcome({ try root.readContents(of: cpath("loop")).text }) == .error(.symlinkLoop))
            #expect(Outcome({ try root.readContents(of: cpath("fifo")).text }) == .error(.notARegularFile))
            #expect(Outcome({ try root.readContents(of: cpath("link-f-slash")).text }) == .error(.notADirectory))
        }
    }
}
