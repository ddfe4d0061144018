import Foundation
import Glibc
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting

/// A sandbox home with one app installed and a repository beside it, in a fresh temporary
/// directory removed afterwards.
struct BackupFixture {
    let scratch: ScratchDirectory
    let home: SandboxHome
    let container: Container
    let repositoryPath: String

    static let app = identifier("com.example.notes")

    static func identifier(_ raw: String) -> AppIdentifier {
        do {
            return try AppIdentifier(raw)
        } catch {
            preconditionFailure("test identifier '\(raw)' is invalid: \(error)")
        }
    }

    static func with<T>(_ body: (BackupFixture) async throws -> T) async throws -> T {
        try await ScratchDirectory.with(prefix: "sandbox-backup") { scratch in
            let home = try SandboxHome(location: scratch.appending("home"))
            let fixture = BackupFixture(
                scratch: scratch, home: home, container: try home.createContainer(for: app),
                repositoryPath: scratch.appending("repo"))
            return try await body(fixture)
        }
    }

    /// Another device: a second home (its own device key), with the app installed.
    func otherDevice(_ name: String = "other") throws -> (SandboxHome, Container) {
        let home = try SandboxHome(location: scratch.appending(name))
        return (home, try home.createContainer(for: Self.app))
    }

    func repository(password: String? = nil) throws -> Repository {
        let storage = try LocalRepositoryStorage.creatingLayout(atHostPath: repositoryPath)
        return try Repository.openOrCreate(storage, password: password.map { Array($0.utf8) })
    }

    /// The host path of `relative` in the app's data container.
    func hostPath(_ relative: String) -> String { container.homeDirectory + "/" + relative }

    func write(_ relative: String, _ bytes: [UInt8]) throws {
        let path = try ContainerPath(relative)
        try container.root.createDirectory(at: path.parent, withIntermediateDirectories: true)
        try container.root.writeContents(bytes, to: path)
    }

    /// Runs `sandbox ARGUMENTS…` against the home.
    func sandbox(_ arguments: [String], home: SandboxHome? = nil) async throws -> ProgramOutput {
        try await BuiltProgram("sandbox").start(
            arguments, environment: ["SANDBOX_HOME": (home ?? self.home).location], outputIn: scratch.path
        ).finish()
    }
}

/// What a tree holds, item by item, for byte-for-byte comparisons: type, mode, size, times,
/// `user.` xattrs, symlink targets, hard-link groups and a digest of the contents.
struct TreeDescription: Equatable, CustomStringConvertible {
    var items: [String: String]

    init(_ root: String, leavingOut: (String) -> Bool = { _ in false }) throws {
        items = [:]
        var inodes: [UInt64: String] = [:]
        let paths = (try FileManager.default.subpathsOfDirectory(atPath: root)).sorted()
        for relative in paths where !leavingOut(relative) {
            let path = root + "/" + relative
            var info = stat()
            guard lstat(path, &info) == 0 else { throw TestFailure("lstat \(path)") }
            var line = "mode=\(String(info.st_mode, radix: 8))"
            let type = info.st_mode & S_IFMT
            if type != S_IFDIR {
                line += " mtime=\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)"
            }
            if type == S_IFREG {
                line += " size=\(info.st_size)"
                if info.st_nlink > 1 {
                    if let first = inodes[UInt64(info.st_ino)] {
                        line += " link=\(first)"
                    } else {
                        inodes[UInt64(info.st_ino)] = relative
                    }
                }
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                line += " fnv=\(Self.fnv(data))"
            } else if type == S_IFLNK {
                line += " target=\(try FileManager.default.destinationOfSymbolicLink(atPath: path))"
            }
            if type != S_IFLNK {
                let confined = try ConfinedRoot(openingDirectoryAt: root)
                let path = try ContainerPath(relative)
                for name in try confined.extendedAttributeNames(at: path).sorted() where name.hasPrefix("user.") {
                    line += " \(name)=\(try confined.extendedAttribute(named: name, at: path) ?? [])"
                }
            }
            items[relative] = line
        }
    }

    /// FNV-1a, 64 bits: enough to tell contents apart in a test.
    static func fnv(_ data: Data) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return hash
    }

    var description: String {
        items.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "\n")
    }
}

/// The error `body` throws, or `nil`.
func failure(of body: () throws(SandboxError) -> Void) -> SandboxError? {
    do {
        try body()
        return nil
    } catch {
        return error
    }
}
