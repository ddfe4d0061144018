import Foundation
import Glibc
import Sandbox
import SandboxTesting
import SystemPackage
import Testing

@Suite(
    "ConfinedLaunch: a descriptor handed down",
    .enabled(if: LandlockABI.current().version >= LandlockABI.required, "needs Landlock ABI 6: Linux 6.12 or later"))
struct PassedDescriptorTests {
    /// Lists the program's open descriptors without opening one, says whether 3 is a socket,
    /// and writes to it.
    private static let script = """
        import os, stat
        descriptors = []
        for fd in range(1024):
            try:
                os.fstat(fd)
                descriptors.append(fd)
            except OSError:
                pass
        print(descriptors, stat.S_ISSOCK(os.fstat(3).st_mode))
        os.write(3, b'hello from the sandbox')
        """

    @Test(
        "a passed socketpair end is descriptor 3 in the program, its registration 4; no other descriptor of the launcher's leaks"
    )
    func passedSocket() async throws {
        try await ScratchDirectory.with(prefix: "sandbox-run") { directory in
            let home = try SandboxHome(location: directory.appending("home"))
            try home.createContainer(for: AppIdentifier("com.example.notes"))
            var pair: [Int32] = [-1, -1]
            #expect(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0)
            defer { for fd in pair { close(fd) } }
            // High, close-on-exec, and beside a descriptor that is not: the program gets it as 3.
            let passed = fcntl(pair[1], F_DUPFD_CLOEXEC, 200)
            let inherited = open("/etc/hostname", O_RDONLY)
            #expect(passed >= 200 && inherited > 2)
            defer {
                close(passed)
                close(inherited)
            }
            let launch = try home.prepareRun(
                AppIdentifier("com.example.notes"), command: ["/usr/bin/python3", "-c", Self.script])
            let output = try FileDescriptor.open(
                directory.appending("out"), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
            let process = try output.closeAfter {
                try launch.start(standardOutput: output, passing: FileDescriptor(rawValue: passed))
            }
            #expect(await process.exit == .exited(0))
            #expect(try String(contentsOfFile: directory.appending("out"), encoding: .utf8) == "[0, 1, 2, 3, 4] True\n")
            var buffer = [UInt8](repeating: 0, count: 64)
            let got = recv(pair[0], &buffer, buffer.count, Int32(MSG_DONTWAIT))
            #expect(got > 0 && String(decoding: buffer.prefix(max(got, 0)), as: UTF8.self) == "hello from the sandbox")
        }
    }

    @Test("without one, descriptor 3 is closed in the program")
    func nothingPassed() async throws {
        try await ScratchDirectory.with(prefix: "sandbox-run") { directory in
            let home = try SandboxHome(location: directory.appending("home"))
            try home.createContainer(for: AppIdentifier("com.example.notes"))
            let launch = try home.prepareRun(
                AppIdentifier("com.example.notes"),
                command: [
                    "/usr/bin/python3", "-c",
                    "import os\ntry: os.fstat(3); print('open')\nexcept OSError: print('closed')",
                ])
            let output = try FileDescriptor.open(
                directory.appending("out"), .writeOnly, options: [.create, .truncate], permissions: .ownerReadWrite)
            let process = try output.closeAfter { try launch.start(standardOutput: output) }
            #expect(await process.exit == .exited(0))
            #expect(try String(contentsOfFile: directory.appending("out"), encoding: .utf8) == "closed\n")
        }
    }

    @Test("a descriptor that is not open is refused before the program runs (dup2, EBADF)")
    func notOpen() throws {
        try ScratchDirectory.with(prefix: "sandbox-run") { directory in
            let home = try SandboxHome(location: directory.appending("home"))
            let container = try home.createContainer(for: AppIdentifier("com.example.notes"))
            let launch = try home.prepareRun(
                AppIdentifier("com.example.notes"), command: ["/usr/bin/touch", "Documents/ran"])
            // High: a number just closed would be the next one open() gives (to the launch itself).
            let unused: Int32 = 1000
            #expect(fcntl(unused, F_GETFD) == -1)
            let error = #expect(throws: SandboxError.self) {
                try launch.start(passing: FileDescriptor(rawValue: unused))
            }
            #expect(error?.cause?.systemCall == "dup2")
            #expect(error?.cause?.errno == .badFileDescriptor)
            #expect(try container.root.attributes(at: ContainerPath("Documents/ran")) == nil)
        }
    }
}
