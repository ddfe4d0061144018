import Foundation
import Glibc
import SandboxTesting
import Testing

/// "The app cannot execute what it wrote", tried as an attacker would: the loader, a memory file,
/// memory made executable, shared memory, `ptrace` — each a real program under `sandbox run`.
@Suite(
    "sandbox run: the app cannot execute what it wrote",
    .enabled(if: landlockIsComplete, "needs Landlock ABI 6: Linux 6.12 or later"))
struct RunWrittenCodeCLITests {
    @Test("a program the app copied into Documents runs neither directly nor through the loader")
    func loaderTrick() async throws {
        try await RunFixture.with { fixture in
            let loader = try DynamicLoader.path()
            let home = fixture.data(fixture.app)
            let script = """
                cp /bin/true Documents/true && chmod +x Documents/true || exit 9
                ./Documents/true; echo "direct $?"
                \(loader) ./Documents/true; echo "loader $?"
                \(loader) \(home)/Documents/true; echo "absolute $?"
                \(loader) /bin/true; echo "system $?"
                """
            let output = try await fixture.run("--", try RunFixture.system("sh"), "-c", script)
            #expect(output.stdout == "direct 126\nloader 127\nabsolute 127\nsystem 0\n", "\(output.stderr)")
            #expect(output.stderr.contains("failed to map segment from shared object"), "\(output.stderr)")
            let mounts = try String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8)
            #expect(!mounts.contains(" \(home) "), "the noexec mount is the program's own, not the launcher's")
        }
    }

    @Test("a program written into a memory file (memfd_create + execv /proc/self/fd/N) is refused")
    func memoryFile() async throws {
        try await RunFixture.with { fixture in
            let script = """
                import os
                fd = os.memfd_create('payload')
                os.write(fd, open('/bin/true', 'rb').read())
                os.execv('/proc/self/fd/%d' % fd, ['payload'])
                """
            let output = try await fixture.run("--", try RunFixture.system("python3"), "-c", script)
            #expect(output.status == 1, "\(output.stderr)")
            #expect(output.stderr.contains("PermissionError: [Errno 1] Operation not permitted"), "\(output.stderr)")
        }
    }

    @Test("no memory both written and executed: RWX, shared executable, mprotect, SysV SHM_EXEC, ptrace")
    func writtenMemory() async throws {
        try await RunFixture.with { fixture in
            let script = """
                import ctypes, mmap, os, signal
                libc = ctypes.CDLL(None, use_errno=True)
                libc.mmap.restype = ctypes.c_void_p
                libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
                libc.shmat.restype = ctypes.c_void_p
                libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
                libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
                libc.ptrace.restype = ctypes.c_long
                failed = (None, ctypes.c_void_p(-1).value)
                def attempt(name, make):
                    try:
                        print(name, 'allowed' if make() else 'refused')
                    except PermissionError:
                        print(name, 'refused')
                RX, RW = mmap.PROT_READ | mmap.PROT_EXEC, mmap.PROT_READ | mmap.PROT_WRITE
                attempt('rwx', lambda: mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE, prot=RW | mmap.PROT_EXEC))
                attempt('shared exec', lambda: mmap.mmap(-1, 4096, flags=mmap.MAP_SHARED, prot=RX))
                page = libc.mmap(None, 4096, RW, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
                attempt('mprotect exec', lambda: libc.mprotect(page, 4096, RX) == 0)
                segment = libc.shmget(0, 4096, 0o1700)  # IPC_CREAT, rwx: only the filter refuses SHM_EXEC
                try:
                    attempt('shm exec', lambda: libc.shmat(segment, None, 0o100000) not in failed)
                    attached = libc.shmat(segment, None, 0)
                    attempt('shm then mprotect exec', lambda: attached not in failed and libc.mprotect(attached, 4096, RX) == 0)
                finally:
                    libc.shmctl(segment, 0, None)
                child = os.fork()
                if child == 0:
                    signal.pause()
                    os._exit(0)
                attempt('ptrace', lambda: libc.ptrace(16, child, None, None) == 0)
                os.kill(child, signal.SIGKILL)
                os.waitpid(child, 0)
                attempt('proc mem', lambda: open('/proc/self/mem', 'r+b'))
                """
            let output = try await fixture.run("--", try RunFixture.system("python3"), "-c", script)
            #expect(output.status == 0, "\(output.stderr)")
            #expect(
                output.stdout
                    == "rwx refused\nshared exec refused\nmprotect exec refused\nshm exec refused\nshm then mprotect exec refused\nptrace refused\nproc mem refused\n",
                "\(output.stderr)")
        }
    }

    @Test("the normal life of a program: python3 writes and reads Documents, maps a file, calls C, starts children")
    func normalLife() async throws {
        try await RunFixture.with { fixture in
            let script = """
                import ctypes, json, mmap, os, subprocess, tempfile
                os.makedirs('Documents/notes', exist_ok=True)
                with open('Documents/notes/a.json', 'w') as f:
                    json.dump({'n': 41}, f)
                with open('Documents/notes/a.json', 'rb') as f:
                    print(json.loads(mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)[:])['n'])
                print(ctypes.CDLL(None).getpid() == os.getpid())
                print(subprocess.run(['/bin/cat', 'Documents/notes/a.json'], capture_output=True, text=True).stdout)
                probe = os.environ['SANDBOX_BUNDLE_PATH'] + '/probe'
                print(subprocess.run([probe, 'read', 'Documents/notes/a.json'], capture_output=True, text=True).stdout, end='')
                with tempfile.NamedTemporaryFile() as t:
                    t.write(b'x')
                    t.flush()
                    print(t.name.startswith(os.environ['HOME'] + '/tmp/'))
                print(subprocess.run(['/bin/sh', '-c', 'echo piped | tr a-z A-Z'], capture_output=True, text=True).stdout, end='')
                """
            let output = try await fixture.run("--", try RunFixture.system("python3"), "-c", script)
            #expect(output.status == 0, "\(output.stderr)")
            #expect(output.stdout == "41\nTrue\n{\"n\": 41}\nok\nTrue\nPIPED\n", "\(output.stderr)")
        }
    }

    @Test(
        "where no mount namespace may be made, run refuses saying so; --best-effort runs and warns",
        .enabled(
            if: getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"),
            "makes a user namespace without CAP_SYS_ADMIN and with no room for another"))
    func noMountNamespace() async throws {
        try await RunFixture.with { fixture in
            // In a user namespace of its own whose limit of nested user namespaces is 0, without
            // CAP_SYS_ADMIN: neither unshare(CLONE_NEWNS) nor unshare(CLONE_NEWUSER) is permitted.
            let confine = "echo 0 > /proc/sys/user/max_user_namespaces && exec setpriv --bounding-set -sys_admin \"$@\""
            func run(_ arguments: [String]) async throws -> ProgramOutput {
                try await BuiltProgram(path: "/usr/bin/unshare").run(
                    [
                        "--user", "--map-root-user", try RunFixture.system("sh"), "-c", confine, "sh",
                        try CLI.program.path,
                    ]
                        + ["run", fixture.app] + arguments,
                    environment: ["SANDBOX_HOME": fixture.cli.home], outputIn: fixture.cli.scratch)
            }
            let refused = try await run(["--", "/bin/true"])
            #expect(refused.status == 1, "\(refused.stderr)")
            #expect(refused.stderr.contains("could not be mounted noexec in a private mount namespace (unshare failed"))
            #expect(refused.stderr.hasSuffix("[unsupported]\n"), "\(refused.stderr)")
            let best = try await run(["--best-effort", "--", "/bin/true"])
            #expect(best.status == 0, "\(best.stderr)")
            #expect(best.stderr.contains("warning: not enforced"), "\(best.stderr)")
            #expect(best.stderr.contains("can still run through the loader (ld.so ./prog)"), "\(best.stderr)")
        }
    }
}
