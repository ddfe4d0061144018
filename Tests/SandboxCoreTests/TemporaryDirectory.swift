import Foundation
import Glibc
import SandboxCore
import SandboxTesting
import SystemPackage
import Testing

/// A fresh directory per test, laid out as the attack list asks:
///
/// ```
/// <tmp>/container/        the root under test
/// <tmp>/outside/secret    a sentinel with known contents that must never be read, changed or removed
/// <tmp>/outside/dir/      a directory with files, for recursive-removal attacks
/// <tmp>/other/            a second container, with other/x
/// <tmp>/payload           a host file, the source of imports
/// ```
///
/// Everything is removed when the value goes away.
final class TemporaryDirectory {
    static let secretContents: [UInt8] = Array("the outside sentinel: never to be read, changed or removed\n".utf8)
    static let otherContents: [UInt8] = Array("another container's file\n".utf8)
    static let payloadContents: [UInt8] = Array("payload from the host\n".utf8)

    /// `<tmp>`, a scratch directory under `$TMPDIR`.
    let scratch: ScratchDirectory
    /// `<tmp>`.
    var path: String { scratch.path }
    /// `<tmp>/container`, the root.
    let container: String
    /// `<tmp>/outside`.
    let outside: String
    /// `<tmp>/outside/secret`.
    let secret: String
    /// `<tmp>/other`, a second container.
    let other: String
    /// `<tmp>/payload`, a host file to import.
    let payload: String

    init() throws {
        scratch = try ScratchDirectory.make(prefix: "sandboxcore-tests")
        container = scratch.appending("container")
        outside = scratch.appending("outside")
        secret = outside + "/secret"
        other = scratch.appending("other")
        payload = scratch.appending("payload")
        do {
            for directory in [container, outside, outside + "/dir", outside + "/dir/sub", other] {
                try Self.hostMakeDirectory(directory)
            }
            try Self.hostWrite(secret, Self.secretContents)
            try Self.hostWrite(outside + "/dir/file1", Array("outside file 1\n".utf8))
            try Self.hostWrite(outside + "/dir/sub/file2", Array("outside file 2\n".utf8))
            try Self.hostWrite(other + "/x", Self.otherContents)
            try Self.hostWrite(payload, Self.payloadContents)
        } catch {
            scratch.remove()
            throw error
        }
    }

    deinit {
        scratch.remove()
    }

    /// Opens the container as a root.
    func root(_ resolution: ConfinedRoot.Resolution) throws -> ConfinedRoot {
        try ConfinedRoot(openingDirectoryAt: container, resolution: resolution)
    }

    /// The host path of `relative` inside the container.
    func host(_ relative: String) -> String {
        relative.isEmpty || relative == "." ? container : container + "/" + relative
    }

    // MARK: Set-up inside the container (through the host, not the root under test)

    /// Writes a file in the container, creating missing parents.
    func makeFile(_ relative: String, _ contents: String = "inside\n") throws {
        try makeFile(relative, bytes: Array(contents.utf8))
    }

    func makeFile(_ relative: String, bytes: [UInt8]) throws {
        let target = host(relative)
        try FileManager.default.createDirectory(
            atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Self.hostWrite(target, bytes)
    }

    /// Makes a directory (and its parents) in the container.
    func makeDirectory(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: host(relative), withIntermediateDirectories: true)
    }

    /// Makes the symlink `relative -> target` in the container, creating missing parents.
    func makeSymlink(_ relative: String, to target: String) throws {
        let link = host(relative)
        try FileManager.default.createDirectory(
            atPath: (link as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        guard symlink(target, link) == 0 else { throw HostError("symlink \(link) -> \(target)", errno) }
    }

    // MARK: Inspection through the host

    /// The contents of a host file, or nil if it cannot be read.
    static func hostRead(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    /// The contents of a file in the container, read through the host.
    func read(_ relative: String) -> [UInt8]? { Self.hostRead(host(relative)) }

    /// `lstat` of a host path.
    static func hostLstat(_ path: String) -> stat? {
        var info = stat()
        return lstat(path, &info) == 0 ? info : nil
    }

    /// The inode number of a host path (not following symlinks), as `FileAttributes.inode` has it.
    static func hostInode(_ path: String) -> UInt64? {
        hostLstat(path).map { UInt64($0.st_ino) }
    }

    /// The file type bits of a host path (not following symlinks), or nil if absent.
    static func hostType(_ path: String) -> mode_t? {
        hostLstat(path).map { $0.st_mode & S_IFMT }
    }

    /// Whether something (even a dangling symlink) exists at the host path.
    static func hostExists(_ path: String) -> Bool { hostLstat(path) != nil }

    /// A description of everything under `<tmp>` except the container itself: type, mode, size,
    /// inode, link count, modification and status-change times, contents or link target, and
    /// extended attributes. Any change outside the container changes the snapshot.
    func outsideSnapshot() -> [String: String] {
        var result: [String: String] = [:]
        let attributesRoot = try? ConfinedRoot(openingDirectoryAt: path, resolution: .manualWalk)
        func visit(_ relative: String) {
            let full = relative.isEmpty ? path : path + "/" + relative
            guard let info = Self.hostLstat(full) else {
                result[relative] = "vanished"
                return
            }
            let type = info.st_mode & S_IFMT
            var description =
                "mode=\(String(info.st_mode, radix: 8)) size=\(info.st_size) ino=\(info.st_ino) nlink=\(info.st_nlink)"
            description +=
                " mtime=\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) ctime=\(info.st_ctim.tv_sec).\(info.st_ctim.tv_nsec)"
            switch type {
            case S_IFREG:
                description +=
                    " contents=\(Self.hostRead(full).map { String(decoding: $0, as: UTF8.self) } ?? "<unreadable>")"
            case S_IFLNK:
                description +=
                    " target=\((try? FileManager.default.destinationOfSymbolicLink(atPath: full)) ?? "<unreadable>")"
            default:
                break
            }
            if type == S_IFREG || type == S_IFDIR, let attributesRoot, !relative.isEmpty,
                let relativePath = try? ContainerPath(relative),
                let names = try? attributesRoot.extendedAttributeNames(at: relativePath)
            {
                for name in names.sorted() {
                    let value = (try? attributesRoot.extendedAttribute(named: name, at: relativePath)) ?? nil
                    description += " xattr[\(name)]=\(value ?? [])"
                }
            }
            result[relative.isEmpty ? "." : relative] = description
            guard type == S_IFDIR else { return }
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: full)) ?? []).sorted()
            for name in names where !(relative.isEmpty && name == "container") {
                visit(relative.isEmpty ? name : relative + "/" + name)
            }
        }
        visit("")
        return result
    }

    // MARK: Host helpers

    static func hostMakeDirectory(_ path: String) throws {
        guard mkdir(path, 0o755) == 0 else { throw HostError("mkdir \(path)", errno) }
    }

    static func hostWrite(_ path: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}

/// Runs `body` with a fresh temporary directory, removed afterwards.
func withTemporaryDirectory<T>(_ body: (TemporaryDirectory) throws -> T) throws -> T {
    let directory = try TemporaryDirectory()
    return try withExtendedLifetime(directory) { try body(directory) }
}

/// A failed host call made while setting a test up.
struct HostError: Error, CustomStringConvertible {
    var what: String
    var code: Int32
    init(_ what: String, _ code: Int32) {
        self.what = what
        self.code = code
    }
    var description: String { "\(what): \(String(cString: strerror(code)))" }
}

/// A validated container path, for brevity in tests.
func cpath(_ string: String) throws(SandboxError) -> ContainerPath {
    try ContainerPath(string)
}

/// Expects `body` to throw a ``SandboxError`` with `code`.
@discardableResult
func expectError(
    _ code: SandboxError.Code,
    _ what: @autoclosure () -> String = "",
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> Void
) -> SandboxError? {
    let label = what()
    let error = #expect(throws: SandboxError.self, "\(label)", sourceLocation: sourceLocation) {
        try body()
    }
    if let error {
        #expect(error.code == code, "\(label): expected [\(code)], got \(error)", sourceLocation: sourceLocation)
    }
    return error
}

/// The two resolutions every confinement case runs under.
let bothResolutions: [ConfinedRoot.Resolution] = [.openat2, .manualWalk]

extension Array where Element == UInt8 {
    var text: String { String(decoding: self, as: UTF8.self) }
}
