import Glibc
import SandboxCore
import SystemPackage
import Testing

@Suite("FullWrite")
struct FullWriteTests {
    private func write(_ bytes: [UInt8], to fd: CInt, atOffset offset: Int64? = nil, path: String) throws {
        try bytes.withUnsafeBytes { buffer in try FullWrite.write(buffer, to: fd, atOffset: offset, path: path) }
    }

    @Test("all of a buffer lands, at the current position and at an offset")
    func writesEverything() throws {
        let fixture = try IOFixture()
        let path = fixture.directory + "/f"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        let bytes = patternBytes(3 << 20 + 7, seed: 5)
        try write(bytes, to: fd, path: path)
        try write([UInt8](repeating: 9, count: 3), to: fd, atOffset: 1, path: path)
        var expected = bytes
        expected.replaceSubrange(1..<4, with: [9, 9, 9])
        #expect(fixture.hostRead("f") == expected)
        try write([UInt8](), to: fd, path: path)
    }

    @Test("a full device is no-space, a read-only descriptor and a pipe at an offset are system-call errors")
    func failures() throws {
        let full = open("/dev/full", O_WRONLY | O_CLOEXEC)
        try #require(full >= 0)
        defer { close(full) }
        let noSpace = #expect(throws: SandboxError.self) {
            try write([UInt8](repeating: 1, count: 10), to: full, path: "/dev/full")
        }
        #expect(noSpace?.code == .noSpace)
        #expect(noSpace?.cause?.systemCall == "write")
        var pipeEnds: [CInt] = [-1, -1]
        try #require(pipe(&pipeEnds) == 0)
        defer { for fd in pipeEnds { close(fd) } }
        let readOnly = #expect(throws: SandboxError.self) {
            try write([UInt8](repeating: 1, count: 10), to: pipeEnds[0], path: "pipe")
        }
        #expect(readOnly?.cause?.errno == .badFileDescriptor)
        let seek = #expect(throws: SandboxError.self) {
            try write([UInt8](repeating: 1, count: 10), to: pipeEnds[1], atOffset: 0, path: "pipe")
        }
        #expect(seek?.cause?.systemCall == "pwrite")
        #expect(seek?.cause?.errno == .illegalSeek)
    }
}
