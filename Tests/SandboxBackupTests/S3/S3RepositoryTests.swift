import Foundation
import Glibc
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

/// The S3 repository against a real Ceph RADOS Gateway, a bucket a test.
@Suite(.serialized, .cephGateway, .enabled(if: CephGateway.isRunnable))
struct S3RepositoryTests {
    static func open(_ address: String, _ gateway: CephGateway, password: String? = nil) throws -> Repository {
        try Repository.openOrCreate(
            try RepositoryAddress(address, environment: gateway.environment).storage(creating: true),
            password: password.map { Array($0.utf8) })
    }

    @Test func aRestoreFromTheGatewayGivesBackTheContainerByteForByte() async throws {
        let gateway = try CephGateway.get()
        try await BackupFixture.with { fixture in
            try RoundTripTests.populate(fixture)
            let address = try gateway.newRepository(prefix: "my phone/backups")
            let repository = try Self.open(address, gateway, password: "pw")
            let before = try TreeDescription(fixture.container.homeDirectory) {
                $0.hasPrefix("Library/Caches/") || $0.hasPrefix("tmp/") || $0.contains("excluded")
                    || $0.contains("exdir")
                    || RoundTripTests.isLeftOut($0)
            }
            let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            // Nothing written where it would be outside the prefix.
            let storage = try gateway.storage(address)
            #expect(try storage.list(.snapshot).map(\.name) == [report.snapshot])
            #expect(
                try gateway.storage(address.replacingOccurrences(of: "/my phone/backups", with: "")).list(.snapshot)
                    .isEmpty)
            try FileManager.default.removeItem(atPath: fixture.hostPath("Documents"))
            try fixture.write("Documents/new.txt", [9])
            let reopened = try Self.open(address, gateway, password: "pw")
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await reopened.snapshot(matching: nil), from: reopened,
                into: fixture.home)
            let after = try TreeDescription(fixture.container.homeDirectory) { RoundTripTests.isLeftOut($0) }
            #expect(after == before)
            let check = try await Checker.check(reopened, readingData: true)
            #expect(check.isHealthy, "\(check.problems)")
        }
    }

    /// SIGKILL during backups to the gateway, 15 times (each killed backup leaves its lock, which
    /// the next one on this host takes over, its process being gone).
    @Test func killedBackupsLeaveARepositoryThatVerifiesAndEarlierSnapshotsRestore() async throws {
        let gateway = try CephGateway.get()
        try await BackupFixture.with { fixture in
            let address = try gateway.newRepository()
            try await KillTests.killBackups(
                fixture, repository: address, environment: gateway.environment, rounds: 15
            ) { try Self.open(address, gateway) }
        }
    }

    @Test func wrongKeysAreAClearError() throws {
        let gateway = try CephGateway.get()
        let address = try gateway.newRepository()
        var environment = gateway.environment
        environment["S3_SECRET_KEY"] = "not-the-secret"
        let error = failure { () throws(SandboxError) in
            _ = try Repository.open(
                RepositoryAddress(address, environment: environment).storage(creating: false), password: nil)
        }
        #expect(error?.code == .permissionDenied)
        #expect(error?.message.contains("SignatureDoesNotMatch") == true, "\(String(describing: error))")
        #expect(error?.message.contains("S3_SECRET_KEY") == true)
        environment = gateway.environment
        environment["S3_ACCESS_KEY"] = "NOSUCHKEY"
        let unknown = failure { () throws(SandboxError) in
            _ = try Repository.open(
                RepositoryAddress(address, environment: environment).storage(creating: false), password: nil)
        }
        #expect(unknown?.code == .permissionDenied)
        #expect(unknown?.message.contains("InvalidAccessKeyId") == true, "\(String(describing: unknown))")
        // A missing bucket, and a gateway that is not there.
        let missing = failure { () throws(SandboxError) in
            _ = try Repository.open(
                RepositoryAddress(
                    "s3://no-such-bucket-\(UInt32.random(in: 0...UInt32.max))", environment: gateway.environment
                ).storage(creating: false), password: nil)
        }
        #expect(missing?.code == .notFound, "\(String(describing: missing))")
        environment = gateway.environment
        environment["S3_ENDPOINT"] = "http://127.0.0.1:9"
        var storage = S3Storage(try S3Location.parse(address, environment: environment))
        storage.maximumAttempts = 2
        let unreachable = failure { () throws(SandboxError) in _ = try storage.get(.config) }
        #expect(unreachable?.code == .repositoryUnreachable, "\(String(describing: unreachable))")
    }

    /// A repository's HTTP client is its own, and closing the repository shuts it down: a request
    /// after that finds the client shut down. (Before, every S3 repository used one process-wide
    /// client that nothing shut down: it kept its connections and its pool for the process's life.)
    @Test func closingTheRepositoryShutsItsHTTPClientDown() async throws {
        let gateway = try CephGateway.get()
        let repository = try await Repository.openOrCreate(
            try await RepositoryAddress(try gateway.newRepository(), environment: gateway.environment).storage(
                creating: true),
            password: nil)
        #expect(try await repository.snapshots().isEmpty)
        await repository.close()
        await repository.close()  // once is enough; again does nothing
        let after = await #expect(throws: SandboxError.self) { try await repository.snapshots() }
        #expect(after?.code == .repositoryUnreachable, "\(String(describing: after))")
        #expect(after?.message.contains("alreadyShutdown") == true, "\(String(describing: after))")
    }

    @Test func aBlobOverTheThresholdGoesInPartsAndReadsBack() throws {
        let gateway = try CephGateway.get()
        let address = try gateway.newRepository()
        let storage = S3Storage(
            try S3Location.parse(address, environment: gateway.environment), multipartThreshold: 5 << 20,
            partSize: 5 << 20)
        let bytes = ChunkerTests.pseudoRandom(11 << 20 + 123, seed: 5)
        let name = ObjectName(.data, String(repeating: "ab", count: 32))
        #expect(try storage.putIfAbsent(bytes, as: name))
        #expect(try storage.size(of: name) == Int64(bytes.count))
        #expect(try storage.get(name) == bytes)
        #expect(try !storage.putIfAbsent(bytes, as: name))
        #expect(try storage.list(.data) == [name])
        #expect(try storage.pendingMultipartUploads() == 0)
    }

    @Test func putIfAbsentIsConditionalAndListingPages() throws {
        let gateway = try CephGateway.get()
        var storage = try gateway.storage(try gateway.newRepository())
        storage.pageSize = 3
        let lock = ObjectName(.lock, "exclusive")
        #expect(try storage.putIfAbsent([1], as: lock))
        #expect(try !storage.putIfAbsent([2], as: lock))
        #expect(try storage.get(lock) == [1])
        try storage.replace([3], as: lock)
        #expect(try storage.get(lock) == [3])
        try storage.delete(lock)
        try storage.delete(lock)
        #expect(try storage.size(of: lock) == nil)
        let names = (0..<8).map { ObjectName(.snapshot, "s\($0) +~é") }
        for name in names { #expect(try storage.putIfAbsent(Array(name.name.utf8), as: name)) }
        #expect(Set(try storage.list(.snapshot)) == Set(names))
        for name in names { #expect(try storage.get(name) == Array(name.name.utf8)) }
        let error = failure { () throws(SandboxError) in _ = try storage.get(ObjectName(.index, "missing")) }
        #expect(error?.code == .notFound)
    }

    @Test func theCommandsTakeAnS3Address() async throws {
        let gateway = try CephGateway.get()
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/a.txt", Array("first".utf8))
            let address = "s3://cli-\(UInt32.random(in: 0...UInt32.max))/phone"  // backup creates the bucket
            func sandbox(_ arguments: [String]) async throws -> ProgramOutput {
                var environment = gateway.environment
                environment["SANDBOX_HOME"] = fixture.home.location
                return try await BuiltProgram("sandbox").start(
                    arguments, environment: environment, outputIn: fixture.scratch.path
                ).finish()
            }
            let first = try await sandbox(["backup", "com.example.notes", address])
            #expect(first.status == 0, "\(first.stderr)")
            try fixture.write("Documents/a.txt", Array("second".utf8))
            #expect(try await sandbox(["backup", "com.example.notes", address]).status == 0)
            let listed = try await sandbox(["snapshots", address, "--json"])
            #expect(listed.status == 0, "\(listed.stderr)")
            let ids = try JSONDecoder().decode([[String: AnyCodable]].self, from: Data(listed.stdout.utf8)).compactMap {
                $0["id"]?.string
            }
            #expect(ids.count == 2)
            let check = try await sandbox(["check", address, "--read-data"])
            #expect(check.status == 0, "\(check.stderr)")
            let restore = try await sandbox([
                "restore", "com.example.notes", address, "--snapshot", String(ids[0].prefix(8)),
            ])
            #expect(restore.status == 0, "\(restore.stderr)")
            #expect(try String(contentsOfFile: fixture.hostPath("Documents/a.txt"), encoding: .utf8) == "first")
            let prune = try await sandbox(["prune", address, "--keep-last", "1"])
            #expect(prune.status == 0, "\(prune.stderr)")
            #expect(prune.stdout.contains("removed 1"))
        }
    }
}
