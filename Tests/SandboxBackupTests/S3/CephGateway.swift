import Foundation
import SandboxBackup
import SandboxCore
import SandboxTesting
import Testing

/// A real Ceph RADOS Gateway for the S3 tests: a single-node cluster (one monitor, one in-memory
/// OSD, one `radosgw` on 127.0.0.1) started by `scripts/ceph-lab.sh` once for the suite that has
/// the ``CephGatewayScope`` trait, and stopped after it.
///
/// Caveats of the lab (its README): memstore keeps the data in RAM, so tests store little; Ceph 16
/// answers an empty ETag to CompleteMultipartUpload; `stop` kills only the daemons it started.
///
/// When Debian's `radosgw` is not installed the suite is skipped on a developer's machine, but
/// runs (and fails) in CI (`CI=true`), where scripts/install-test-tools installs it.
struct CephGateway: Sendable {
    let scratch: String
    let environment: [String: String]

    @TaskLocal static var current: CephGateway?

    /// Whether the suite runs: in CI always, elsewhere when `radosgw` is installed.
    static var isRunnable: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true"
            || FileManager.default.isExecutableFile(atPath: "/usr/bin/radosgw")
    }

    static var script: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/ceph-lab.sh").path
    }

    var labEnvironment: [String: String] {
        ["CEPH_LAB_DIR": scratch + "/cluster", "CEPH_LAB_MEM_BYTES": String(1 << 30)]
    }

    /// Starts the lab, a second time when the first start fails: a one-node cluster that has
    /// started hundreds of times here failed once in CI, 43 s into a loaded run, and a suite of
    /// S3 tests should not fail for its fixture. Both failures are reported when both fail.
    static func start() async throws -> CephGateway {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/radosgw") else {
            throw TestFailure(
                "Ceph's radosgw is not installed: run scripts/install-test-tools (ceph-mon ceph-osd radosgw ceph-common)."
            )
        }
        var failures: [String] = []
        for _ in 0..<2 {
            let scratch = FileManager.default.temporaryDirectory
                .appendingPathComponent("sandbox-ceph-\(UUID().uuidString)").path
            try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
            let gateway = CephGateway(scratch: scratch, environment: [:])
            let output = try await BuiltProgram(path: script).run(
                ["start"], environment: gateway.labEnvironment, outputIn: scratch, timeout: .seconds(300))
            guard output.status == 0 else {
                await gateway.stop()
                failures.append("ceph-lab.sh start failed (\(output.status)): \(Self.summary(of: output.stderr))")
                continue
            }
            return try await gateway.started(printing: output.stdout)
        }
        throw TestFailure(failures.joined(separator: "\n-- then --\n"))
    }

    /// What a failed start said: its `ERROR` lines (the cause), then the end of what it printed.
    private static func summary(of stderr: String) -> String {
        let errors = stderr.split(separator: "\n").filter { $0.contains("ERROR") }.joined(separator: "\n")
        return errors + "\n" + stderr.suffix(2000)
    }

    /// This gateway with the variables a successful start printed (`S3_ENDPOINT=…`).
    private func started(printing stdout: String) async throws -> CephGateway {
        var variables: [String: String] = [:]
        for line in stdout.split(separator: "\n") {
            let parts = line.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { variables[String(parts[0])] = String(parts[1]) }
        }
        guard variables["S3_ENDPOINT"] != nil else {
            await stop()
            throw TestFailure("ceph-lab.sh start printed no S3_ENDPOINT: \(stdout)")
        }
        return CephGateway(scratch: scratch, environment: variables)
    }

    func stop() async {
        _ = try? await BuiltProgram(path: Self.script).run(
            ["stop"], environment: labEnvironment, outputIn: scratch, timeout: .seconds(120))  // best effort at the end
        try? FileManager.default.removeItem(atPath: scratch)  // the lab's own folder is gone after stop
    }

    /// A fresh bucket's `s3://` address, the bucket created.
    func newRepository(prefix: String = "repo") throws -> String {
        let address = "s3://t-\(UInt64.random(in: 0...UInt64.max))/\(prefix)"
        _ = try RepositoryAddress(address, environment: environment).storage(creating: true)
        return address
    }

    func storage(_ address: String) throws -> S3Storage {
        S3Storage(try S3Location.parse(address, environment: environment))
    }

    /// The running gateway of the enclosing suite.
    static func get() throws -> CephGateway {
        guard let current else { throw TestFailure("no Ceph gateway: the suite needs the .cephGateway trait") }
        return current
    }
}

/// Starts the gateway before the suite and stops it after.
struct CephGatewayScope: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(
        for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
    ) async throws {
        let gateway = try await CephGateway.start()
        do {
            try await CephGateway.$current.withValue(gateway) { try await function() }
        } catch {
            await gateway.stop()
            throw error
        }
        await gateway.stop()
    }
}

extension Trait where Self == CephGatewayScope {
    static var cephGateway: Self { Self() }
}
