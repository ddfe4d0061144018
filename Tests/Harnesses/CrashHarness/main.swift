// A process the I/O tests start, and often kill, to check what the library guarantees across a
// crash and under resource limits.
//
//   sandbox-crash-harness write <container> <path> <bytes> <seed-a> <seed-b> <writer|contents> [once|loop] [durable] [staged] [named]
//       Replaces <path> in the container at <container> with content B (see `content`) — once, or
//       in a loop alternating B and A until killed. Exit 0 when done (once). `staged`: temporary
//       names go to the container's `tmp/` (as in a Sandbox container); `named`: no O_TMPFILE
//       (SANDBOX_TMPFILE=off), as on file systems without it.
//   sandbox-crash-harness emfile <container> <path>
//       Lowers its descriptor limit to 64 and opens <path> until the library reports an error.
//       Exit 0 if that error is [too-many-open-files], 4 for another error, 5 for no error at all.
//
// Exit 2 for a malformed command line, 3 for an unexpected library error (printed on stderr).

import Glibc
import SandboxCore

/// The bytes a writer writes for `seed`: the tests compute the same function.
func content(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    var bytes = [UInt8](repeating: 0, count: count)
    bytes.withUnsafeMutableBytes { buffer in
        var index = 0
        while index < buffer.count {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            var word = z ^ (z >> 31)
            for _ in 0..<8 where index < buffer.count {
                buffer[index] = UInt8(truncatingIfNeeded: word)
                word >>= 8
                index += 1
            }
        }
    }
    return bytes
}

func fail(_ status: Int32, _ message: String) -> Never {
    let line = Array("sandbox-crash-harness: \(message)\n".utf8)
    _ = line.withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
    exit(status)
}

func write(
    root: ConfinedRoot, path: ContainerPath, data: DataRegions, technique: String, options: WriteOptions
) async throws {
    switch technique {
    case "writer":
        // Streamed in 256 KiB appends, published on finish.
        try await root.withWriter(at: path, options: options) { writer in
            var offset = 0
            while offset < data.count {
                let end = min(data.count, offset + (256 << 10))
                try await writer.write(data.slice(offset..<end))
                offset = end
            }
        }
    case "contents":
        try await root.writeContents(data, to: path, options: options, engine: .shared)
    default:
        fail(2, "unknown technique '\(technique)'")
    }
}

func runWrite(_ arguments: [String]) async {
    guard arguments.count >= 7, let count = Int(arguments[3]), let seedA = UInt64(arguments[4]),
        let seedB = UInt64(arguments[5])
    else {
        fail(
            2,
            "usage: write <container> <path> <bytes> <seed-a> <seed-b> <writer|contents> [once|loop] [durable] [staged] [named]"
        )
    }
    let flags = Set(arguments.dropFirst(7))
    let loop = flags.contains("loop")
    let options: WriteOptions = flags.contains("durable") ? [.atomic, .durable] : .atomic
    if flags.contains("named") { setenv("SANDBOX_TMPFILE", "off", 1) }  // before the first write reads it
    do {
        var root = try ConfinedRoot(openingDirectoryAt: arguments[1])
        if flags.contains("staged") {
            root = try root.openSubroot(at: .root, stagingWritesIn: try ContainerPath("tmp"))
        }
        let path = try ContainerPath(arguments[2])
        let contents = [
            DataRegions(content(count: count, seed: seedB)), DataRegions(content(count: count, seed: seedA)),
        ]
        var round = 0
        repeat {
            try await write(
                root: root, path: path, data: contents[round % 2], technique: arguments[6], options: options)
            round += 1
        } while loop
    } catch {
        fail(3, "\(error)")
    }
}

func runDescriptorExhaustion(_ arguments: [String]) {
    guard arguments.count >= 3 else { fail(2, "usage: emfile <container> <path>") }
    var limit = rlimit(rlim_cur: 64, rlim_max: 64)
    guard setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else {
        fail(3, "setrlimit: \(String(cString: strerror(errno)))")
    }
    var handles: [OpenFile] = []
    do {
        let root = try ConfinedRoot(openingDirectoryAt: arguments[1])
        let path = try ContainerPath(arguments[2])
        for _ in 0..<1000 {
            handles.append(try root.openFile(forReadingAt: path))
        }
    } catch {
        print(error.code)
        exit(error.code == .tooManyOpenFiles ? 0 : 4)
    }
    fail(5, "opened \(handles.count) files under a limit of 64 without an error")
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "write": await runWrite(arguments)
case "emfile": runDescriptorExhaustion(arguments)
default: fail(2, "usage: sandbox-crash-harness write|emfile …")
}
