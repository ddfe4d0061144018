import Foundation
import Glibc
import SandboxBackup
import SandboxCore
import SandboxStore
import SandboxTesting
import Testing

/// A repository `config` changed by someone with write access to the storage but no password
/// (issue 26, item 11): refused by every command before anything is written, and named by `check`.
@Suite struct ConfigTamperTests {
    /// 2 GiB chunks: before, later backups were "saved" and checked clean, but a restore could not
    /// read a chunk over 64 MiB back.
    @Test func aHugeChunkSizeOnAPlainRepositoryIsRefusedByEveryCommand() async throws {
        try await BackupFixture.with { fixture in
            try fixture.write("Documents/a.txt", Array("first".utf8))
            let repo = fixture.repositoryPath
            let first = try await fixture.sandbox(["backup", "com.example.notes", repo])
            #expect(first.status == 0, "\(first.stderr)")
            try ConfigTampering.setChunking(repo, "maximumSize", to: 2 << 30)
            try fixture.write("Documents/a.txt", Array("second".utf8))
            let before = try ConfigTampering.inventory(repo)

            for arguments in [
                ["backup", "com.example.notes", repo], ["check", repo], ["snapshots", repo],
                ["restore", "com.example.notes", repo], ["prune", repo, "--keep-last", "1"],
            ] {
                let run = try await fixture.sandbox(arguments)
                #expect(run.status != 0, "\(arguments[0]) accepted the config: \(run.stdout)")
                #expect(run.stderr.contains("[repository-damaged]"), "\(arguments[0]): \(run.stderr)")
                #expect(
                    run.stderr.contains("chunking.maximumSize is 2147483648, outside the legal 524288…33554432"),
                    "\(arguments[0]): \(run.stderr)")
            }
            #expect(try ConfigTampering.inventory(repo) == before)
            #expect(try String(contentsOfFile: fixture.hostPath("Documents/a.txt"), encoding: .utf8) == "second")
        }
    }

    /// A minimum and average of 1 GiB: named too, by the library's open and by a check of a
    /// repository opened before the change.
    @Test func gigabyteChunkSizesAreNamedByOpenAndByCheck() async throws {
        try await BackupFixture.with { fixture in
            let repository = try RepositoryFailureTests.backedUp(fixture)
            try ConfigTampering.setChunking(fixture.repositoryPath, "minimumSize", to: 1 << 30)
            try ConfigTampering.setChunking(fixture.repositoryPath, "averageSize", to: 1 << 30)
            let report = try await Checker.check(repository, readingData: false)
            #expect(!report.isHealthy)
            #expect(
                report.problems.contains { $0.contains("chunking.averageSize is 1073741824") }, "\(report.problems)")
            let error = failure { () throws(SandboxError) in
                _ = try ConfigTampering.openForBackup(fixture.repositoryPath)
            }
            #expect(error?.code == .repositoryDamaged)
            #expect(
                error?.message.contains("chunking.averageSize is 1073741824, outside the legal 4096…16777216") == true)
        }
    }

    /// A field changed in an encrypted repository, its authentication left as it was.
    @Test func aChangedFieldOfAnEncryptedRepositoryIsDetected() async throws {
        try await BackupFixture.with { fixture in
            let repository = try RepositoryFailureTests.backedUp(fixture, password: "right")
            // A legal size: only the authentication tells it from the real one.
            try ConfigTampering.setChunking(fixture.repositoryPath, "minimumSize", to: 128 << 10)
            let before = try ConfigTampering.inventory(fixture.repositoryPath)
            let report = try await Checker.check(repository, readingData: false)
            #expect(report.problems.contains { $0.contains("do not match its authentication") }, "\(report.problems)")
            let error = failure { () throws(SandboxError) in
                _ = try Backup.run(
                    apps: [BackupFixture.app], from: fixture.home,
                    to: try ConfigTampering.openForBackup(fixture.repositoryPath, password: "right"))
            }
            #expect(error?.code == .repositoryDamaged)
            #expect(
                error?.message.contains("someone without the password changed them") == true,
                "\(String(describing: error))")
            #expect(try ConfigTampering.inventory(fixture.repositoryPath) == before)
        }
    }

    /// The authentication removed and the version set back to 1, as an older version wrote it.
    @Test func aStrippedAuthenticationIsDetected() async throws {
        try await BackupFixture.with { fixture in
            let repository = try RepositoryFailureTests.backedUp(fixture, password: "right")
            try ConfigTampering.edit(fixture.repositoryPath) { config in
                config["authentication"] = nil
                config["version"] = 1
                config["chunking"] = ["minimumSize": 128 << 10, "averageSize": 256 << 10, "maximumSize": 1 << 20]
            }
            let before = try ConfigTampering.inventory(fixture.repositoryPath)
            let report = try await Checker.check(repository, readingData: false)
            #expect(report.problems.contains { $0.contains("its authentication was removed") }, "\(report.problems)")
            let storage = try LocalRepositoryStorage(openingDirectoryAt: fixture.repositoryPath)
            let errors = [
                failure { () throws(SandboxError) in  // backup's open
                    _ = try ConfigTampering.openForBackup(fixture.repositoryPath, password: "right")
                },
                failure { () throws(SandboxError) in _ = try Repository.open(storage, password: Array("right".utf8)) },
            ]
            for error in errors {
                #expect(error?.code == .repositoryDamaged)
                #expect(
                    error?.message.contains("its authentication was removed") == true, "\(String(describing: error))")
            }
            #expect(try ConfigTampering.inventory(fixture.repositoryPath) == before)
        }
    }

    /// `encrypted` turned off, so that a backup run without the password would store plaintext.
    @Test func anEncryptedRepositoryTurnedPlainIsRefused() async throws {
        try await BackupFixture.with { fixture in
            _ = try RepositoryFailureTests.backedUp(fixture, password: "right")
            try ConfigTampering.edit(fixture.repositoryPath) { config in
                config["authentication"] = nil
                config["encrypted"] = false
            }
            let before = try ConfigTampering.inventory(fixture.repositoryPath)
            let error = failure { () throws(SandboxError) in
                _ = try Backup.run(
                    apps: [BackupFixture.app], from: fixture.home,
                    to: try ConfigTampering.openForBackup(fixture.repositoryPath))
            }
            #expect(error?.code == .repositoryDamaged)
            #expect(error?.message.contains("encrypted is false, but the repository holds the key file") == true)
            #expect(try ConfigTampering.inventory(fixture.repositoryPath) == before)
        }
    }

    /// scrypt parameters that would take gigabytes or many seconds are refused before any work.
    @Test(arguments: [
        (1 << 16, 8, 16),  // 64 MiB, but 32 times the standard's work
        (1 << 20, 8, 1),  // 1 GiB
        (1 << 22, 32, 16),  // 16 GiB, 4,096 times the standard's work
    ])
    func hostileKeyDerivationsAreRefusedAtOnce(rounds: Int, blockSize: Int, parallelism: Int) throws {
        let json = """
            {"algorithm": "scrypt", "rounds": \(rounds), "blockSize": \(blockSize), "parallelism": \(parallelism),
             "salt": "\(Data(repeating: 7, count: 32).base64EncodedString())"}
            """
        let derivation = try JSONDecoder().decode(PasswordKeyDerivation.self, from: Data(json.utf8))
        let start = ContinuousClock.now
        #expect(throws: SandboxError.self) { _ = try derivation.deriveKey(from: Array("right".utf8)) }
        let elapsed = ContinuousClock.now - start
        print("refusing N=\(rounds) r=\(blockSize) p=\(parallelism) took \(elapsed)")
        #expect(elapsed < .seconds(1))
    }

    /// A key file with hostile parameters beside the real one: the repository opens with the real
    /// one; alone, it is named in the error.
    @Test func aHostileKeyFileIsSkippedAndNamed() async throws {
        try await BackupFixture.with { fixture in
            _ = try RepositoryFailureTests.backedUp(fixture, password: "right")
            let keys = fixture.repositoryPath + "/keys/"
            let real = try ConfigTampering.keyFiles(fixture.repositoryPath)
            #expect(real.count == 1)
            let realBytes = try Data(contentsOf: URL(fileURLWithPath: keys + real[0]))
            guard var object = try JSONSerialization.jsonObject(with: realBytes) as? [String: Any],
                var derivation = object["derivation"] as? [String: Any]
            else { throw TestFailure("the key file is not a JSON object") }
            derivation["rounds"] = 1 << 16
            derivation["parallelism"] = 16
            object["derivation"] = derivation
            let hostile = (real[0].hasPrefix("0") ? "1" : "0") + String(real[0].dropFirst())  // tried first
            try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: keys + hostile))
            let storage = try LocalRepositoryStorage(openingDirectoryAt: fixture.repositoryPath)
            let start = ContinuousClock.now
            _ = try await Repository.open(storage, password: Array("right".utf8))
            print("opening beside a hostile key file took \(ContinuousClock.now - start)")

            #expect(unlink(keys + real[0]) == 0)
            let alone = ContinuousClock.now
            let error = failure { () throws(SandboxError) in
                _ = try Repository.open(storage, password: Array("right".utf8))
            }
            let elapsed = ContinuousClock.now - alone
            print("refusing the hostile key file alone took \(elapsed)")
            #expect(elapsed < .seconds(5))  // no derivation at all; it took 20 s before the bound
            #expect(error?.code == .wrongPassword)
            #expect(error?.message.contains("'keys/\(hostile)'") == true, "\(String(describing: error))")
            #expect(error?.message.contains("N=65536, r=8, p=16") == true)
        }
    }

    /// Many key files (each of standard cost): an open derives at most a few keys, then says so.
    @Test func anOpenTriesABoundedNumberOfKeyFiles() async throws {
        try await BackupFixture.with { fixture in
            _ = try RepositoryFailureTests.backedUp(fixture, password: "right")
            let keys = fixture.repositoryPath + "/keys/"
            let real = try ConfigTampering.keyFiles(fixture.repositoryPath)
            let realBytes = try Data(contentsOf: URL(fileURLWithPath: keys + real[0]))
            guard var object = try JSONSerialization.jsonObject(with: realBytes) as? [String: Any],
                var derivation = object["derivation"] as? [String: Any]
            else { throw TestFailure("the key file is not a JSON object") }
            #expect(unlink(keys + real[0]) == 0)
            for number in 0..<20 {
                derivation["salt"] = Data(repeating: UInt8(number), count: 32).base64EncodedString()
                object["derivation"] = derivation
                try JSONSerialization.data(withJSONObject: object).write(
                    to: URL(fileURLWithPath: keys + String(format: "%064x", number)))
            }
            let storage = try LocalRepositoryStorage(openingDirectoryAt: fixture.repositoryPath)
            let start = ContinuousClock.now
            let error = failure { () throws(SandboxError) in
                _ = try Repository.open(storage, password: Array("right".utf8))
            }
            print("refusing 20 key files took \(ContinuousClock.now - start)")
            #expect(error?.code == .wrongPassword)
            #expect(
                error?.message.contains("of the 20 key derivations were tried") == true, "\(String(describing: error))")
        }
    }
}
