import Foundation
import SandboxTesting
import Testing

/// `sandbox verify` probes fs-verity on the bundle's files: where the file system has none (ext4
/// without the `verity` feature, tmpfs) it says so and the bundle is checked at open as before.
@Suite("fs-verity on installed bundles")
struct VerityCLITests {

    @Test("verify reports fs-verity's outcome; unsupported changes nothing else")
    func probe() async throws {
        try await CLI.withTemporary { cli in
            let key = cli.scratch + "/dev.key"
            #expect(try await cli.run("keygen", key, "--trust").status == 0)
            let bundle = cli.scratch + "/Notes.app"
            try FileManager.default.createDirectory(atPath: bundle, withIntermediateDirectories: true)
            try Data(infoPlist(identifier: "com.example.notes", version: "1").utf8).write(
                to: URL(fileURLWithPath: bundle + "/Info.plist"))
            #expect(try await cli.run("sign", bundle, "--key", key).status == 0)
            #expect(try await cli.run("create", "com.example.notes", "--bundle", bundle).status == 0)
            let first = try await cli.run("verify", "com.example.notes")
            #expect(first.status == 0, "\(first.stderr)")
            let line = try #require(first.stdout.split(separator: "\n").first { $0.hasPrefix("fs-verity: ") })
            if line.contains("unsupported") {
                #expect(line.contains("FS_IOC_ENABLE_VERITY"))
                #expect(line.contains("checked against its signed manifest at open"))
            } else {
                #expect(line.contains("enabled on 1 file(s)"))
            }
            // Probing again (or after enabling) is the same and the bundle still verifies.
            let second = try await cli.run("verify", "com.example.notes")
            #expect(second.status == 0, "\(second.stderr)")
            #expect(second.stdout.contains("bundle intact"))
        }
    }
}
