import Foundation
import Glibc
import Sandbox
import SandboxTesting
import Testing

/// `sandbox users` lists what the lifecycle commands coordinate with, and a refused `uninstall`
/// names the user and points at it.
@Suite struct UsersCLITests {
    @Test func usersAreListedAndARefusedUninstallNamesThem() async throws {
        try await CLI.withTemporary { cli in
            let app = "com.example.users"
            try #require(try await cli.run("create", app).status == 0)
            #expect(try await cli.run("users", app).stdout == "")
            let home = try SandboxHome(location: cli.home)
            let identifier = try AppIdentifier(app)
            let program = try ContainerPresenter(
                home: home, app: identifier, kind: .run, description: "sandbox run python3")
            let daemon = try ContainerPresenter(home: home, app: identifier, kind: .daemon, description: "sandboxd")
            try daemon.hold([ContainerPath("Library/Caches/com.apple.nsurlsessiond")])

            let listed = try await cli.run("users", app, "--json")
            let users = try JSONDecoder().decode([PresenterRecord].self, from: Data(listed.stdout.utf8))
            #expect(Set(users.map(\.kind)) == [.run, .daemon], "\(listed.stdout)")
            #expect(users.allSatisfy { $0.pid == getpid() })
            let text = try await cli.run("users", app)
            #expect(text.stdout.contains("run\t\(getpid())\tsandbox run python3\n"), "\(text.stdout)")
            #expect(text.stdout.contains("holding Library/Caches/com.apple.nsurlsessiond"), "\(text.stdout)")

            let refused = try await cli.run("uninstall", app)
            #expect(refused.status == 1)
            #expect(refused.stderr.contains("[container-in-use]"), "\(refused.stderr)")
            #expect(refused.stderr.contains("sandbox run python3 (pid \(getpid()))"), "\(refused.stderr)")
            #expect(refused.stderr.contains("`sandbox users <app-id>`"), "\(refused.stderr)")
            #expect(try await cli.run("list").stdout == "\(app)\tno\n")

            program.close()
            // The daemon is asked to let go and, here, never answers: the uninstall fails after its
            // wait, naming it, and nothing is removed.
            let unanswered = try await cli.run("uninstall", app)
            #expect(unanswered.status == 1)
            #expect(unanswered.stderr.contains("sandboxd (pid \(getpid())) did not let go"), "\(unanswered.stderr)")
            #expect(try await cli.run("list").stdout == "\(app)\tno\n")
            daemon.close()
            #expect(try await cli.run("uninstall", app).status == 0)
            #expect(try await cli.run("list").stdout == "")
        }
    }
}
