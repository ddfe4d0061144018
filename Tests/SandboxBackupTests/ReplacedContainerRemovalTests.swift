import Foundation
import Glibc
import Sandbox
import SandboxCore
import SandboxTesting
import Testing

@testable import SandboxBackup

/// The container a restore replaced is removed, all of it, on several threads (the core's
/// `removeItem(at:recursively:threads:)`, whose own tests cover symlinks, read-only folders and
/// races).
@Suite struct ReplacedContainerRemovalTests {
    @Test func aRestoreLeavesNoReplacedContainerBehind() async throws {
        try await BackupFixture.with { fixture in
            for folder in 0..<12 {
                for depth in 0..<3 {
                    let path = "Documents/f\(folder)" + String(repeating: "/d", count: depth) + "/file\(depth).txt"
                    try fixture.write(path, Array("\(folder) \(depth)".utf8))
                }
            }
            let repository = try fixture.repository()
            let report = try await Backup.run(apps: [BackupFixture.app], from: fixture.home, to: repository)
            try fixture.write("Documents/f3/d/extra.txt", [1])
            _ = try await Restore.run(
                app: BackupFixture.app, snapshot: try await repository.snapshot(matching: report.snapshot),
                from: repository, into: fixture.home)
            let data = fixture.home.location + "/Containers/Data"
            let left = try FileManager.default.contentsOfDirectory(atPath: data)
            #expect(left == [BackupFixture.app.rawValue], "\(left)")
            #expect(!FileManager.default.fileExists(atPath: fixture.hostPath("Documents/f3/d/extra.txt")))
            #expect(FileManager.default.fileExists(atPath: fixture.hostPath("Documents/f11/d/d/file2.txt")))
        }
    }
}
