import Foundation
import Sandbox
import SandboxTesting
import SandboxWatch
import Testing

extension WatcherTests {
    @Suite("sandbox watch follows its container through restore and uninstall (issue 28)")
    struct ContainerFollowingCLITests {
        func start(_ fixture: TemporaryContainer, _ arguments: [String]) throws -> RunningProgram {
            try BuiltProgram("sandbox").start(
                arguments, environment: ["SANDBOX_HOME": fixture.home.location], outputIn: fixture.scratch)
        }

        @Test("after a restore it reports the container replaced and reports files created in the new one")
        func restoreThenNewFile() async throws {
            try await TemporaryContainer.with { fixture in
                let watch = try start(fixture, ["watch", TemporaryContainer.app, "--json"])
                defer { watch.signal(SIGKILL) }  // a no-op once it has ended
                #expect(try await eventually { try watch.standardError().contains("Watching Documents") })
                try HostFiles.write(fixture.documents + "/before.txt")
                #expect(try await eventually { try watch.standardOutput().contains("Documents/before.txt") })

                let app = try AppIdentifier(TemporaryContainer.app)
                let failure = await coordinate(.restore, of: app, in: fixture.home) { () throws(SandboxError) in
                    try restoreContainer(of: app, in: fixture.home, documents: ["restored.txt"])
                }
                #expect(failure == nil)
                let replaced = #"{"event":"container-replaced","path":"Documents"}"#
                #expect(try await eventually { try watch.standardOutput().contains(replaced) })
                // The old container's removal is not reported as the folder's.
                #expect(try !watch.standardOutput().contains("folder-removed"))

                try HostFiles.write(fixture.documents + "/after.txt")
                let after = #"{"event":"added","path":"Documents/after.txt","type":"file"}"#
                #expect(try await eventually { try watch.standardOutput().contains(after) })
                #expect(watch.isRunning)
            }
        }

        @Test("after an uninstall it says so and exits 0")
        func uninstallEnds() async throws {
            try await TemporaryContainer.with { fixture in
                let watch = try start(fixture, ["watch", TemporaryContainer.app])
                defer { watch.signal(SIGKILL) }  // a no-op once it has ended
                #expect(try await eventually { try watch.standardError().contains("Watching Documents") })
                let app = try AppIdentifier(TemporaryContainer.app)
                let failure = await coordinate(.uninstall, of: app, in: fixture.home) { () throws(SandboxError) in
                    try fixture.home.root.removeItem(
                        at: try ContainerPath("Containers/Data/\(app.rawValue)"), recursively: true)
                }
                #expect(failure == nil)
                #expect(await watch.exit(timeout: .seconds(30)) == .exited(0))
                #expect(try watch.standardOutput().contains("container-removed Documents"))
                #expect(try watch.standardError().contains("was uninstalled"))
            }
        }
    }
}
