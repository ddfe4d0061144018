import Foundation
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// Devices backing up into one repository at once (issue 30): each its own sandbox home with the
/// app installed, whose Documents hold the same 8 MiB `shared.bin` on every device and 1–2 MiB
/// of its own `own.bin`. Backups, restores and prunes run the built `sandbox` program, one process
/// a device, as a fleet of machines would.
struct Fleet {
    static let sharedPath = "Documents/shared.bin"
    static let sharedBytes = ChunkerTests.pseudoRandom(8 << 20, seed: 30)

    let fixture: BackupFixture
    let devices: [(home: SandboxHome, container: Container)]
    /// The repository's address (a folder or `s3://…`).
    let repository: String
    /// Laid over the programs' environment (the gateway's keys).
    let environment: [String: String]
    /// Given to every command (`--password-file …`).
    let passwordArguments: [String]

    init(
        _ fixture: BackupFixture, devices count: Int, repository: String, environment: [String: String] = [:],
        password: String? = nil
    ) throws {
        self.fixture = fixture
        var devices: [(home: SandboxHome, container: Container)] = []
        for index in 0..<count {
            let (home, container) = try fixture.otherDevice("device-\(index)")
            let root = container.root
            try root.createDirectory(at: try ContainerPath("Documents"), withIntermediateDirectories: true)
            try root.writeContents(Self.sharedBytes, to: try ContainerPath(Self.sharedPath))
            try root.writeContents(Self.ownBytes(of: index), to: try ContainerPath("Documents/own.bin"))
            devices.append((home, container))
        }
        self.devices = devices
        self.repository = repository
        self.environment = environment
        if let password {
            let file = fixture.scratch.appending("fleet-password")
            try Data(password.utf8).write(to: URL(fileURLWithPath: file))
            passwordArguments = ["--password-file", file]
        } else {
            passwordArguments = []
        }
    }

    /// Device `index`'s own data: 1 MiB and a quarter MiB more a device.
    static func ownBytes(of index: Int) -> [UInt8] {
        ChunkerTests.pseudoRandom((1 << 20) + index * (1 << 18), seed: UInt64(31 + index))
    }

    /// Starts `sandbox ARGUMENTS…` as device `index`.
    func start(_ arguments: [String], device index: Int) throws -> RunningProgram {
        var environment = environment
        environment["SANDBOX_HOME"] = devices[index].home.location
        return try BuiltProgram("sandbox").start(
            arguments + passwordArguments, environment: environment, outputIn: fixture.scratch.path)
    }

    /// Runs `sandbox ARGUMENTS…` as device `index` to its end.
    func run(_ arguments: [String], device index: Int) async throws -> ProgramOutput {
        try await start(arguments, device: index).finish()
    }

    /// `sandbox backup` of the app on every device, all started before any is waited for.
    func backUpAtOnce() async throws -> [ProgramOutput] {
        let running = try devices.indices.map { index in
            try start(["backup", BackupFixture.app.rawValue, repository], device: index)
        }
        var outputs: [ProgramOutput] = []
        for program in running { outputs.append(try await program.finish()) }
        return outputs
    }

    /// The snapshot id prefix `sandbox backup` printed ("snapshot 1a2b3c4d saved: …").
    static func snapshotPrefix(_ output: ProgramOutput) throws -> String {
        guard let range = output.stdout.range(of: #"snapshot [0-9a-f]{8} saved"#, options: .regularExpression) else {
            throw TestFailure("no snapshot in the backup's output: \(output.stdout) \(output.stderr)")
        }
        return String(output.stdout[range].dropFirst("snapshot ".count).prefix(8))
    }

    /// Empties each device's Documents, restores on every device at once — its own snapshot
    /// (`prefixes[index]`), or with none named the one `sandbox restore` takes, which must be the
    /// device's own latest, not the repository's — and expects each device's own files back byte
    /// for byte.
    func restoreEachDevice(_ prefixes: [String]? = nil) async throws {
        let before = try devices.map { try TreeDescription($0.container.homeDirectory + "/Documents") }
        for device in devices {
            try FileManager.default.removeItem(atPath: device.container.homeDirectory + "/Documents")
        }
        let running = try devices.indices.map { index in
            let named = prefixes.map { ["--snapshot", $0[index]] } ?? []
            return try start(["restore", BackupFixture.app.rawValue, repository] + named, device: index)
        }
        for (index, program) in running.enumerated() {
            let restore = try await program.finish()
            #expect(restore.status == 0, "device \(index): \(restore.stderr)")
        }
        for (index, device) in devices.enumerated() {
            let home = device.container.homeDirectory
            #expect(try TreeDescription(home + "/Documents") == before[index], "device \(index)")
            #expect(
                try Data(contentsOf: URL(fileURLWithPath: home + "/Documents/own.bin"))
                    == Data(Self.ownBytes(of: index)))
        }
    }

    /// For each chunk of `shared.bin` (as the latest snapshot lists it), how many packs hold it.
    static func copiesOfSharedChunks(in repository: Repository) throws -> [Int] {
        let snapshot = try repository.snapshot(matching: nil)
        guard let part = snapshot.record.parts.first else { throw TestFailure("a snapshot without parts") }
        let nodes = try JSONDecoder.repository.decode([TreeNode].self, from: Data(try repository.loadSplit(part.tree)))
        guard let chunks = nodes.first(where: { $0.path == Data(sharedPath.utf8) })?.chunks else {
            throw TestFailure("no \(sharedPath) in snapshot \(snapshot.id)")
        }
        var packs: [BlobKey: Set<BlobKey>] = [:]
        for name in try repository.storage.list(.index) {
            for pack in try repository.loadIndexContents(name).packs {
                for blob in pack.blobs { packs[blob.entry.id, default: []].insert(pack.id) }
            }
        }
        return chunks.map { id in BlobKey(hex: id).flatMap { packs[$0]?.count } ?? 0 }
    }
}
