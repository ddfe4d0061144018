import Foundation

/// One fuzz target: a parser of outside input, the invariants its results must keep, and the
/// seeds that only the library can make (the rest of each corpus is checked in as files).
struct FuzzTarget: Sendable {
    /// The name used by `scripts/fuzz`, the corpus folder and `SANDBOX_FUZZ_TARGET`.
    let name: String
    /// Runs once before the first input (e.g. makes a scratch sandbox home).
    var prepare: @Sendable () -> Void = {}
    /// Feeds one input to the parser and checks what comes out.
    let run: @Sendable ([UInt8]) -> Void
    /// Seeds made by the library itself, by file name.
    var seeds: @Sendable () -> [String: [UInt8]] = { [:] }

    /// Every target, in the order `scripts/fuzz` runs them.
    static let all: [FuzzTarget] = [
        .containerPath, .appIdentifier, .binaryPropertyList, .xmlPropertyList, .archive, .preferencesFile,
        .fileName, .keychainFile, .bundleManifest, .bundleSignature, .resumeData, .checkpoint, .contentRange,
        .contentDisposition, .validator, .imageSniff, .daemonFrames, .xmlTree, .keyedArchive, .iosKeyBag, .zstdBlob,
        .backupPack, .backupIndex, .backupTree,
    ]

    /// The target named by `SANDBOX_FUZZ_TARGET`; exits with the list of names when there is none.
    static let selected: FuzzTarget = {
        let name = ProcessInfo.processInfo.environment["SANDBOX_FUZZ_TARGET"] ?? ""
        guard let target = all.first(where: { $0.name == name }) else {
            let names = all.map(\.name).joined(separator: ", ")
            FileHandle.standardError.write(
                Data("sandbox-fuzz: set SANDBOX_FUZZ_TARGET to one of: \(names) (got '\(name)').\n".utf8))
            exit(2)
        }
        return target
    }()

    /// Writes ``seeds`` into `folder` as `seed-<name>` files.
    func writeSeeds(to folder: String) {
        for (name, bytes) in seeds().sorted(by: { $0.key < $1.key }) {
            let path = folder + "/seed-" + name
            guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
                fatalError("sandbox-fuzz: cannot write the seed '\(path)'")
            }
        }
    }
}
