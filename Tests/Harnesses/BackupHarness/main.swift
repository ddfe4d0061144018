import Foundation
import Sandbox
import SandboxBackup
import SandboxCore

// The process the kill tests end with SIGKILL at random moments:
//
//     sandbox-backup-harness backup  HOME REPO APP
//     sandbox-backup-harness restore HOME REPO APP SNAPSHOT
//     sandbox-backup-harness restore-include HOME REPO APP SNAPSHOT PATH
//     sandbox-backup-harness import  HOME PACKAGE APP      (an .xcappdata package)
//     sandbox-backup-harness import-ios HOME FOLDER APP    (an iOS backup folder)
//     sandbox-backup-harness prune HOME REPO APP KEEP      (keeps the KEEP newest, repacks)
//
// REPO is a directory or s3://bucket/prefix (S3_ENDPOINT and the keys from the environment).
//
// It prints "ready" on standard output once the repository is open, then works; exit 0 when done.

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 5 else { fail("usage: sandbox-backup-harness backup|restore HOME REPO APP [SNAPSHOT]") }
do {
    let home = try SandboxHome(location: arguments[2])
    let app = try AppIdentifier(arguments[4])
    if arguments[1] == "import" {
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        _ = try XcodeContainer.importContainer(app: app, into: home, from: arguments[3])
        exit(0)
    }
    if arguments[1] == "import-ios" {
        FileHandle.standardOutput.write(Data("ready\n".utf8))
        _ = try IOSBackup.importApp(app, into: home, from: arguments[3])
        exit(0)
    }
    let storage = try RepositoryAddress(arguments[3]).storage(creating: true)
    let repository = try Repository.openOrCreate(storage, password: nil)
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    switch arguments[1] {
    case "backup":
        let report = try Backup.run(apps: [app], from: home, to: repository)
        print(report.snapshot)
    case "restore" where arguments.count == 6:
        _ = try Restore.run(
            app: app, snapshot: try repository.snapshot(matching: arguments[5]), from: repository, into: home)
    case "restore-include" where arguments.count == 7:
        _ = try Restore.run(
            app: app, snapshot: try repository.snapshot(matching: arguments[5]), including: [arguments[6]],
            from: repository, into: home)
    case "prune" where arguments.count == 6:
        guard let keep = Int(arguments[5]) else { fail("KEEP is not a number: \(arguments[5])") }
        _ = try Pruner.prune(repository, keepingLast: keep)
    default:
        fail("unknown command \(arguments[1])")
    }
} catch {
    fail(error.description)
}
