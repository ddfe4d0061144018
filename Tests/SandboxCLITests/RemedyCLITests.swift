import Foundation
import SandboxTesting
import Testing

/// The remedy the CLI adds to a failure fits it: listing a container's folder for an item
/// missing there — not for a keychain item or a host file —, and `rm --recursive` for `rm` of a
/// folder that is not empty.
@Suite struct RemedyCLITests {
    @Test func everyRemedyFitsItsFailure() async throws {
        try await CLI.withTemporary { cli in
            let app = "com.example.remedies"
            try #require(try await cli.run("create", app).status == 0)
            try #require(try await cli.run("mkdir", app, "--parents", "Documents/full/inside").status == 0)

            let missingItem = try await cli.run("keychain", app, "get", "mail", "alice")
            #expect(missingItem.status != 0 && missingItem.stderr.contains("[not-found]"), "\(missingItem.stderr)")
            #expect(!missingItem.stderr.contains("sandbox ls"), "a keychain item is no folder: \(missingItem.stderr)")
            #expect(
                missingItem.stderr.contains("`sandbox keychain \(app) set 'mail' 'alice'`"), "\(missingItem.stderr)")
            let missingDeletion = try await cli.run("keychain", app, "delete", "mail", "alice")
            #expect(!missingDeletion.stderr.contains("sandbox ls"), "\(missingDeletion.stderr)")

            let missingHostFile = try await cli.run("put", app, cli.scratch + "/no-such-file.txt", "Documents/a.txt")
            #expect(
                missingHostFile.status != 0 && missingHostFile.stderr.contains("[not-found]"),
                "\(missingHostFile.stderr)")
            #expect(!missingHostFile.stderr.contains("sandbox ls"), "a host file: \(missingHostFile.stderr)")

            let missingFile = try await cli.run("cat", app, "Documents/missing.txt")
            #expect(missingFile.stderr.contains("List the folder with `sandbox ls"), "\(missingFile.stderr)")

            let removal = try await cli.run("rm", app, "Documents/full")
            #expect(removal.stderr.contains("[directory-not-empty]"), "\(removal.stderr)")
            #expect(removal.stderr.contains("`sandbox rm --recursive`"), "\(removal.stderr)")
        }
    }
}
