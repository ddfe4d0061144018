import Foundation
import Sandbox
import SandboxTesting
import SystemPackage
import Testing

@Suite(
    "App Groups under sandbox run: a group's container is granted to its members only",
    .enabled(if: LandlockABI.current().version >= LandlockABI.required, "needs Landlock ABI 6: Linux 6.12 or later"))
struct AppGroupRunTests {
    @Test("a member writes and reads the group container; a non-member can neither read nor list it")
    func membersOnly() async throws {
        try await ScratchDirectory.with(prefix: "sandbox-run") { directory in
            let home = try SandboxHome(location: directory.appending("home"))
            let group = try AppGroupIdentifier("group.com.example.shared")
            let notes = try installMember("com.example.notes", of: [group.rawValue], in: home, scratch: directory.path)
            let other = try installMember("com.example.other", of: [], in: home, scratch: directory.path)
            let shared = home.location + "/Containers/Shared/AppGroup/" + group.rawValue
            let write = try home.prepareRun(
                notes.identifier,
                command: ["sh", "-c", "echo hi > '\(shared)/Library/Caches/a' && cat '\(shared)/Library/Caches/a'"])
            let out = directory.appending("out")
            let output = try FileDescriptor.open(
                out, .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
            let member = try output.closeAfter { try write.start(standardOutput: output) }
            #expect(await member.exit == .exited(0))
            #expect(try String(contentsOfFile: out, encoding: .utf8) == "hi\n")

            for command in [
                "cat '\(shared)/Library/Caches/a'", "ls '\(shared)'", "echo x > '\(shared)/Library/Caches/b'",
            ] {
                let launch = try home.prepareRun(other.identifier, command: ["sh", "-c", command])
                let err = directory.appending("err")
                let errors = try FileDescriptor.open(
                    err, .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
                let outsider = try errors.closeAfter { try launch.start(standardError: errors) }
                #expect(await outsider.exit != .exited(0), "\(command)")
                #expect(try String(contentsOfFile: err, encoding: .utf8).contains("Permission denied"), "\(command)")
            }
            #expect(!FileManager.default.fileExists(atPath: shared + "/Library/Caches/b"))
        }
    }

    @Test(
        "code a member copied into the group container runs neither directly, nor through the loader, nor mapped executable"
    )
    func groupContainerIsNoexec() async throws {
        try await ScratchDirectory.with(prefix: "sandbox-run") { directory in
            let home = try SandboxHome(location: directory.appending("home"))
            let group = try AppGroupIdentifier("group.com.example.shared")
            let notes = try installMember("com.example.notes", of: [group.rawValue], in: home, scratch: directory.path)
            let shared = home.location + "/Containers/Shared/AppGroup/" + group.rawValue
            let caches = shared + "/Library/Caches"
            let loader = try DynamicLoader.path()
            let map = """
                import mmap
                f = open('true', 'rb')
                try:
                    mmap.mmap(f.fileno(), 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_EXEC)
                    print('mapped')
                except PermissionError:
                    print('refused')
                """
            let script = """
                cd '\(caches)' && cp /bin/true true && chmod +x true || exit 9
                ./true; echo "direct $?"
                \(loader) ./true; echo "loader $?"
                \(loader) '\(caches)/true'; echo "absolute $?"
                python3 -c "\(map)"
                """
            let launch = try home.prepareRun(notes.identifier, command: ["sh", "-c", script])
            let out = directory.appending("out")
            let err = directory.appending("err")
            let output = try FileDescriptor.open(
                out, .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
            let errors = try FileDescriptor.open(
                err, .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
            let member = try output.closeAfter {
                try errors.closeAfter { try launch.start(standardOutput: output, standardError: errors) }
            }
            #expect(await member.exit == .exited(0))
            let stderr = try String(contentsOfFile: err, encoding: .utf8)
            #expect(
                try String(contentsOfFile: out, encoding: .utf8) == "direct 126\nloader 127\nabsolute 127\nrefused\n",
                "\(stderr)")
            #expect(stderr.contains("failed to map segment from shared object"), "\(stderr)")
            let mounts = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
            #expect(!mounts.contains(" \(shared) "), "the noexec mount is the program's own")
        }
    }
}
