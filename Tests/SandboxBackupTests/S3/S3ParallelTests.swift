import Foundation
import Sandbox
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

/// Several requests in flight (issue 30), through ``DelayProxy``'s 40 ms round trip to the suite's
/// Ceph gateway: a restore and a `check --read-data` with 8 requests at once finish in a fraction
/// of the time one at a time needs, on kept-alive connections, with the same bytes and findings.
extension S3RepositoryTests {
    /// 150 small files (a blob each) and one of 3 MiB: enough requests for their latency to show.
    static func populateMany(_ fixture: BackupFixture) throws {
        for index in 0..<150 {
            try fixture.write(
                "Documents/many/\(index / 50)/f\(index).bin",
                ChunkerTests.pseudoRandom(2000 + index, seed: UInt64(index + 10)))
        }
        try fixture.write("Documents/large.bin", ChunkerTests.pseudoRandom(3 << 20, seed: 7))
    }

    /// The repository at `address` reached through `proxy`, `concurrency` requests at once.
    static func open(_ address: String, through proxy: DelayProxy, concurrency: Int) throws -> Repository {
        try Repository.open(
            try RepositoryAddress(address, environment: proxy.environment).storage(
                creating: false, concurrency: concurrency),
            password: Array("pw".utf8))
    }

    /// A backup of ``populateMany(_:)`` to a fresh bucket (straight to the gateway), then `body`
    /// with a proxy in front of it.
    static func withBackupBehindProxy(
        _ body: (BackupFixture, String, DelayProxy) async throws -> Void
    ) async throws {
        let gateway = try CephGateway.get()
        try await BackupFixture.with { fixture in
            try populateMany(fixture)
            let address = try gateway.newRepository()
            let direct = try open(address, gateway, password: "pw")
            // Packs of 16 KiB: ~25 objects out of ~3.3 MiB, so reading them whole (check) is many
            // requests too, as reading a real repository's 8 MiB packs is.
            var options = BackupOptions.standard
            options.packSize = 16 << 10
            _ = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: direct, options: options)
            await direct.close()
            let proxy = try await DelayProxy.start(before: gateway, scratch: fixture.scratch.path)
            do {
                try await body(fixture, address, proxy)
            } catch {
                await proxy.stop()
                throw error
            }
            await proxy.stop()
        }
    }

    @Test func aRestoreWithEightRequestsInFlightBeatsOneAtATimeOnReusedConnections() async throws {
        try await Self.withBackupBehindProxy { fixture, address, proxy in
            let before = try TreeDescription(fixture.container.homeDirectory) { RoundTripTests.isLeftOut($0) }
            var seconds: [Int: Double] = [:]
            var connections: [Int: Int] = [:]
            for concurrency in [1, 8] {
                try FileManager.default.removeItem(atPath: fixture.hostPath("Documents/many"))
                let repository = try Self.open(address, through: proxy, concurrency: concurrency)
                let accepted = proxy.connectionsAccepted()
                let start = ContinuousClock.now
                _ = try await Restore.run(
                    app: BackupFixture.app, snapshot: try await repository.snapshot(matching: nil), from: repository,
                    into: fixture.home)
                seconds[concurrency] = (ContinuousClock.now - start).secondsAsDouble
                connections[concurrency] = proxy.connectionsAccepted() - accepted
                await repository.close()
                let after = try TreeDescription(fixture.container.homeDirectory) { RoundTripTests.isLeftOut($0) }
                #expect(after == before, "restore with \(concurrency) request(s) at once")
            }
            let serial = seconds[1] ?? 0
            let parallel = seconds[8] ?? 0
            // ~160 GETs of a 40 ms round trip: ideally 8×; a loaded machine is allowed a lot.
            #expect(serial > 2.5 * parallel, "1 at a time: \(serial) s, 8: \(parallel) s")
            // Connections kept alive: at most one a request in flight, for ~160 requests.
            #expect((connections[1] ?? 0) <= 1, "connections: \(connections)")
            #expect((1...8).contains(connections[8] ?? 0), "connections: \(connections)")
        }
    }

    @Test func checkReadingDataFindsDamagedBlobsTheSameInParallelAsSerially() async throws {
        let gateway = try CephGateway.get()
        try await Self.withBackupBehindProxy { _, address, proxy in
            // Two stored packs damaged in place (one byte each), straight at the gateway.
            let storage = try gateway.storage(address)
            let names = try storage.list(.data).sorted { $0.name < $1.name }
            try #require(names.count >= 16, "\(names.count) packs")
            let damaged = [names[3], names[names.count - 5]]
            for name in damaged {
                var bytes = try storage.get(name)
                bytes[bytes.count / 2] ^= 0x55
                try storage.replace(bytes, as: name)
            }
            await storage.close()
            var reports: [Int: CheckReport] = [:]
            var seconds: [Int: Double] = [:]
            var connections: [Int: Int] = [:]
            for concurrency in [1, 8] {
                let repository = try Self.open(address, through: proxy, concurrency: concurrency)
                let accepted = proxy.connectionsAccepted()
                let start = ContinuousClock.now
                reports[concurrency] = try await Checker.check(repository, readingData: true)
                seconds[concurrency] = (ContinuousClock.now - start).secondsAsDouble
                connections[concurrency] = proxy.connectionsAccepted() - accepted
                await repository.close()
            }
            let serial = try #require(reports[1])
            #expect(reports[8] == serial)
            #expect(serial.blobsRead >= names.count)
            for name in damaged {
                #expect(serial.problems.contains { $0.contains("'\(name)'") }, "\(serial.problems)")
            }
            #expect(!serial.affectedFiles.isEmpty)
            // Overlap is judged by the connections kept alive, not by time: the packs' sizes and the
            // trees are still read one request at a time, which on a loaded machine hides the gain.
            // A second connection opens only for a request made while another is in flight.
            #expect((connections[1] ?? 0) <= 1, "connections: \(connections); seconds: \(seconds)")
            #expect((2...8).contains(connections[8] ?? 0), "connections: \(connections); seconds: \(seconds)")
        }
    }
}
