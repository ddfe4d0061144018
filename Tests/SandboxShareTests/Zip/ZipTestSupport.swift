import Foundation
import Glibc
import HTTPTypes
import Hummingbird
import NIOCore
import SandboxTesting
import Synchronization

@testable import SandboxShare

/// A response body writer that keeps what it is given, for archives written without a server.
struct CollectingWriter: ResponseBodyWriter {
    final class Sink: Sendable {
        private let state = Mutex<(bytes: [UInt8], writes: Int, finished: Bool)>(([], 0, false))
        var bytes: [UInt8] { state.withLock { $0.bytes } }
        var writes: Int { state.withLock { $0.writes } }
        var finished: Bool { state.withLock { $0.finished } }

        fileprivate func append(_ buffer: ByteBuffer) {
            state.withLock {
                $0.bytes.append(contentsOf: buffer.readableBytesView)
                $0.writes += 1
            }
        }

        fileprivate func finish() { state.withLock { $0.finished = true } }
    }

    let sink = Sink()

    mutating func write(_ buffer: ByteBuffer) async throws { sink.append(buffer) }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws { sink.finish() }
}

/// Reading and checking archives in tests.
enum ZipCheck {
    /// The little-endian integer at `offset` of `bytes`.
    static func integer<T: FixedWidthInteger>(_ bytes: [UInt8], at offset: Int, as type: T.Type = T.self) -> T {
        var value: T = 0
        for index in (0..<MemoryLayout<T>.size).reversed() { value = value << 8 | T(bytes[offset + index]) }
        return value
    }

    /// Every offset of the 4-byte `signature` in `bytes`.
    static func offsets(of signature: UInt32, in bytes: [UInt8]) -> [Int] {
        guard bytes.count >= 4 else { return [] }
        return (0...(bytes.count - 4)).filter { integer(bytes, at: $0, as: UInt32.self) == signature }
    }

    /// Writes `bytes` to `path`.
    static func save(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Runs a Python script (`python3 -c`) with `arguments`; returns its standard output.
    ///
    /// - Throws: ``TestFailure`` when it exits with a failure, with what it printed.
    static func python(_ script: String, _ arguments: [String], scratch: String) async throws -> String {
        let output = try await ExternalTool.run("python3", ["-c", script] + arguments, outputIn: scratch)
        guard output.status == 0 else {
            throw TestFailure("python3 failed (\(output.exit)): \(output.stdout)\n\(output.stderr)")
        }
        return output.stdout
    }

    /// Checks the archive at `path` with `python3 -m zipfile -t` and `unzip -t`, and compares
    /// every entry with the item of the same name (bytes) under `source`. Returns one line per
    /// entry: `<name in hex> <bit 11 set> <mode in octal> same|differs`.
    static func verify(_ path: String, against source: String, scratch: String) async throws -> [String] {
        // `python3 -m zipfile -t` exits 0 either way: what it prints says.
        let test = try await ExternalTool.run("python3", ["-m", "zipfile", "-t", path], outputIn: scratch)
        guard test.status == 0, test.stdout == "Done testing\n" else {
            throw TestFailure("python3 -m zipfile -t \(path): \(test.stdout)\n\(test.stderr)")
        }
        let unzip = try await ExternalTool.run("unzip", ["-t", path], outputIn: scratch)
        guard unzip.status == 0 else { throw TestFailure("unzip -t \(path): \(unzip.stdout)\n\(unzip.stderr)") }
        let output = try await python(Self.compareScript, [path, source], scratch: scratch)
        return output.split(separator: "\n").map(String.init)
    }

    private static let compareScript = """
        import os, sys, zipfile
        archive = zipfile.ZipFile(sys.argv[1])
        source = os.fsencode(sys.argv[2])
        for info in archive.infolist():
            utf8 = bool(info.flag_bits & 0x800)
            raw = info.filename.encode('utf-8' if utf8 else 'cp437')
            where = os.path.join(source, raw)
            if info.is_dir():
                same = os.path.isdir(where) and not os.path.islink(where)
            else:
                with open(where, 'rb') as f:
                    same = f.read() == archive.read(info)
            print(raw.hex(), utf8, oct(info.external_attr >> 16), 'same' if same else 'differs')
        """

    /// The hex spelling of `bytes`, as Python's `bytes.hex()` writes it.
    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }
}

/// Writes `contents` to the file at the raw path `path` (bytes: names need not be UTF-8).
func plantFile(_ path: [UInt8], _ contents: [UInt8]) throws {
    let cPath = path.map { CChar(bitPattern: $0) } + [0]
    let fd = open(cPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    guard fd >= 0 else { throw TestFailure("open \(String(decoding: path, as: UTF8.self)): errno \(errno)") }
    defer { close(fd) }
    var written = 0
    while written < contents.count {
        let result = contents[written...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard result > 0 else { throw TestFailure("write: errno \(errno)") }
        written += result
    }
}
