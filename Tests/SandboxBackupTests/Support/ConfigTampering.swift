import Foundation
import Glibc
import SandboxBackup
import SandboxCore
import SandboxTesting

/// Changes a repository's objects as someone with write access to the storage (and no password)
/// would, and takes inventories of what the repository holds.
enum ConfigTampering {
    /// Rewrites the repository's `config` JSON with `change` applied to it.
    static func edit(_ repository: String, _ change: (inout [String: Any]) -> Void) throws {
        let path = repository + "/config"
        guard
            var object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
                as? [String: Any]
        else { throw TestFailure("the config is not a JSON object") }
        change(&object)
        let bytes = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        try bytes.write(to: URL(fileURLWithPath: path), options: .atomic)
    }

    /// Sets `config.chunking.<field>` to `value`.
    static func setChunking(_ repository: String, _ field: String, to value: Int) throws {
        try edit(repository) { config in
            var chunking = config["chunking"] as? [String: Any] ?? [:]
            chunking[field] = value
            config["chunking"] = chunking
        }
    }

    /// Every file of the repository (lock files too) with its mode, size, modification time and a
    /// digest of its contents: equal inventories mean nothing was written.
    static func inventory(_ repository: String) throws -> [String: String] {
        var result: [String: String] = [:]
        for relative in try FileManager.default.subpathsOfDirectory(atPath: repository) {
            var info = stat()
            let path = repository + "/" + relative
            guard lstat(path, &info) == 0 else { throw TestFailure("lstat \(path)") }
            // A folder's time moves with a check's shared lock, written and removed in `locks/`.
            guard info.st_mode & S_IFMT != S_IFDIR else {
                result[relative] = "folder"
                continue
            }
            let contents = try Data(contentsOf: URL(fileURLWithPath: path)).hashValue
            result[relative] =
                "mode=\(String(info.st_mode, radix: 8)) size=\(info.st_size) mtime=\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec) contents=\(contents)"
        }
        return result
    }

    /// Opens the repository at `path` as `sandbox backup` does (``Repository/openOrCreate(_:password:chunking:)``).
    static func openForBackup(_ path: String, password: String? = nil) throws(SandboxError) -> Repository {
        try Repository.openOrCreate(
            try LocalRepositoryStorage(openingDirectoryAt: path), password: password.map { Array($0.utf8) })
    }

    /// The names in the repository's `keys/`.
    static func keyFiles(_ repository: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: repository + "/keys").filter { !$0.hasPrefix(".") }.sorted()
    }
}
