import Crypto
import Foundation
import SandboxTesting
import SwiftASN1
import Testing
import X509

/// `sandbox share --tls` and `--tls-cert/--tls-key` against real clients on loopback: curl with
/// the printed key pin and with the user's CA, rclone over `webdavs`, and hostile bytes on the
/// TLS port.
@Suite struct ShareTLSTests {
    /// The device certificate: curl with the printed pin gets in (an upload, read back); a wrong
    /// pin and an unpinned, verifying curl are refused; the key and certificate are private files
    /// in `Device/Share/`, and the printed fingerprint is the certificate's.
    @Test(.enabled(if: ExternalTool.available("curl")), .timeLimit(.minutes(3)))
    func curlWithThePrintedPinGetsInAndAWrongPinDoesNot() async throws {
        try await ShareServerProcess.with(arguments: ["--tls"]) { server in
            try await ScratchDirectory.with(prefix: "sandbox-tls") { scratch in
                #expect(server.url.hasPrefix("https://127.0.0.1:"), "printed URL: \(server.url)")
                let printed = try server.process.standardOutput()
                let pin = try #require(ShareServerProcess.value(after: "Key pin:", in: printed))
                let fingerprint = try #require(ShareServerProcess.value(after: "Certificate:", in: printed))
                let upload = scratch.appending("hello.txt")
                try Data("over TLS".utf8).write(to: URL(fileURLWithPath: upload))

                let put = try await Self.curl(
                    ["-k", "--pinnedpubkey", pin, "-T", upload, server.url + "hello.txt"], server: server,
                    scratch: scratch)
                #expect(put.exit == .exited(0), "curl --pinnedpubkey PUT: \(put.stderr)")
                #expect(server.contents("hello.txt") == "over TLS")
                let get = try await Self.curl(
                    ["-k", "--pinnedpubkey", pin, server.url + "hello.txt"], server: server, scratch: scratch)
                #expect(get.stdout == "over TLS", "curl GET: \(get.stderr)")

                // What litmus skips over TLS: a body sent only after `100 Continue`.
                let large = scratch.appending("large.bin")
                try Data(repeating: 7, count: 2 << 20).write(to: URL(fileURLWithPath: large))
                let continued = try await Self.curl(
                    [
                        "-v", "-k", "--pinnedpubkey", pin, "--expect100-timeout", "30", "-H", "Expect: 100-continue",
                        "-T", large, server.url + "large.bin",
                    ], server: server, scratch: scratch)
                #expect(continued.stderr.contains("HTTP/1.1 100 Continue"), "curl -v: \(continued.stderr.suffix(1500))")
                #expect(FileManager.default.contents(atPath: server.documents("large.bin"))?.count == 2 << 20)

                let wrongPin = "sha256//" + Data(SHA256.hash(data: Data("another key".utf8))).base64EncodedString()
                let wrong = try await Self.curl(
                    ["-k", "--pinnedpubkey", wrongPin, server.url + "hello.txt"], server: server, scratch: scratch)
                #expect(wrong.exit == .exited(90), "curl with a wrong pin: \(wrong.exit) \(wrong.stderr)")
                #expect(wrong.stdout.isEmpty)
                let unpinned = try await Self.curl([server.url + "hello.txt"], server: server, scratch: scratch)
                #expect(unpinned.exit == .exited(60), "a verifying curl refuses the self-signed certificate")

                let folder = server.home + "/Device/Share"
                for file in ["tls-key.pem", "tls-certificate.pem"] {
                    let mode = try #require(
                        FileManager.default.attributesOfItem(atPath: folder + "/" + file)[.posixPermissions] as? Int)
                    #expect(mode == 0o600, "\(file) is \(String(mode, radix: 8))")
                }
                let folderMode = try #require(
                    FileManager.default.attributesOfItem(atPath: folder)[.posixPermissions] as? Int)
                #expect(folderMode == 0o700)
                let kept = try String(contentsOfFile: folder + "/tls-certificate.pem", encoding: .utf8)
                let certificate = try Certificate(pemEncoded: kept)
                var serializer = DER.Serializer()
                try serializer.serialize(certificate)
                let expected = SHA256.hash(data: serializer.serializedBytes).map { String(format: "%02X", $0) }
                    .joined(separator: ":")
                #expect(fingerprint == "SHA-256 " + expected)
            }
        }
    }

    /// A certificate the user's own CA issued (the chain with it): curl trusting that CA
    /// (`--cacert`) gets in without `-k`; trusting another CA, it is refused.
    @Test(.enabled(if: ExternalTool.available("curl")), .timeLimit(.minutes(3)))
    func aCertificateFromTheUsersCAIsServedAndVerified() async throws {
        try await ScratchDirectory.with(prefix: "sandbox-tls-ca") { files in
            let authority = try TestCertificateAuthority()
            let (certificate, key) = try authority.issue()
            try Self.write(certificate, to: files.appending("server.pem"))
            try Self.write(key, to: files.appending("server.key"))
            try Self.write(try authority.pem, to: files.appending("ca.pem"))
            try Self.write(try TestCertificateAuthority().pem, to: files.appending("other-ca.pem"))
            let arguments = ["--tls-cert", files.appending("server.pem"), "--tls-key", files.appending("server.key")]
            try await ShareServerProcess.with(arguments: arguments) { server in
                try server.plant("notes.txt", "from the share")
                let trusted = try await Self.curl(
                    ["--cacert", files.appending("ca.pem"), server.url + "notes.txt"], server: server,
                    scratch: files)
                #expect(trusted.exit == .exited(0), "curl --cacert: \(trusted.stderr)")
                #expect(trusted.stdout == "from the share")
                let byName = try await Self.curl(
                    ["--cacert", files.appending("ca.pem"), "https://localhost:\(server.port)/notes.txt"],
                    server: server, scratch: files)
                #expect(byName.stdout == "from the share", "by the name localhost: \(byName.stderr)")
                let other = try await Self.curl(
                    ["--cacert", files.appending("other-ca.pem"), server.url + "notes.txt"], server: server,
                    scratch: files)
                #expect(other.exit == .exited(60), "another CA: \(other.exit) \(other.stderr)")
            }
        }
    }

    /// rclone's `webdav` backend over `https://` trusting the user's CA (`--ca-cert`): a tree goes
    /// up, and `rclone check` finds no difference.
    @Test(.enabled(if: ExternalTool.available("rclone")), .timeLimit(.minutes(5)))
    func rcloneCopiesATreeOverWebDAVS() async throws {
        try await ScratchDirectory.with(prefix: "sandbox-tls-rclone") { scratch in
            let authority = try TestCertificateAuthority()
            let (certificate, key) = try authority.issue()
            try Self.write(certificate, to: scratch.appending("server.pem"))
            try Self.write(key, to: scratch.appending("server.key"))
            try Self.write(try authority.pem, to: scratch.appending("ca.pem"))
            let arguments = [
                "--tls-cert", scratch.appending("server.pem"), "--tls-key", scratch.appending("server.key"),
            ]
            try await ShareServerProcess.with(arguments: arguments) { server in
                let source = scratch.appending("source")
                let count = try FileTree.make(at: source, count: 60).count
                let obscured = try await ExternalTool.run(
                    "rclone", ["obscure", server.code], environment: ["HOME": scratch.path], outputIn: scratch.path)
                let remote =
                    ":webdav,url='\(server.url)',vendor=other,user=sandbox,pass="
                    + obscured.stdout.trimmingCharacters(in: .whitespacesAndNewlines) + ":up"
                for command in [["copy", source, remote], ["check", source, remote]] {
                    let output = try await ExternalTool.run(
                        "rclone",
                        command + [
                            "--ca-cert", scratch.appending("ca.pem"), "--config", scratch.appending("rclone.conf"),
                        ], environment: ["HOME": scratch.path], outputIn: scratch.path, timeout: .seconds(200))
                    #expect(
                        output.exit == .exited(0),
                        "rclone \(command[0]): \(output.stderr.suffix(2000))\nserver: \(server.log().suffix(1500))")
                }
                #expect(FileTree.files(under: server.documents("up")).count == count)
                #expect(FileTree.differences(between: source, and: server.documents("up")).isEmpty)
            }
        }
    }

    /// Hostile bytes on the TLS port: a plain-HTTP request, garbage, and a handshake that stops
    /// after its first bytes are each closed without an HTTP answer — the stalled one by the
    /// deadline of a connection that has not logged in (5 s) — and the server serves on.
    @Test(.enabled(if: ExternalTool.available("curl")), .timeLimit(.minutes(3)))
    func plainHTTPGarbageAndAStalledHandshakeAreClosed() async throws {
        try await ShareServerProcess.with(arguments: ["--tls"]) { server in
            try await ScratchDirectory.with(prefix: "sandbox-tls-hostile") { scratch in
                let port = server.port
                let plain = try await onOwnThread {
                    let connection = try RawConnection(port: port, timeout: 20)
                    try connection.send("GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
                    return try Self.readToEnd(connection)
                }
                #expect(!String(decoding: plain, as: UTF8.self).hasPrefix("HTTP/"), "a plain request got HTTP back")

                let garbage = try await onOwnThread {
                    let connection = try RawConnection(port: port, timeout: 20)
                    var generator = SystemRandomNumberGenerator()
                    try connection.send((0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) })
                    return try Self.readToEnd(connection)
                }
                #expect(!String(decoding: garbage, as: UTF8.self).hasPrefix("HTTP/"))

                let stalled = try await onOwnThread {
                    let connection = try RawConnection(port: port, timeout: 30)
                    // A TLS record header announcing a 512-byte ClientHello, then silence.
                    try connection.send([0x16, 0x03, 0x01, 0x02, 0x00, 0x01])
                    let start = ContinuousClock.now
                    let received = try Self.readToEnd(connection)
                    return (received, ContinuousClock.now - start)
                }
                #expect(stalled.0.isEmpty, "a stalled handshake got \(stalled.0.count) bytes")
                #expect(stalled.1 < .seconds(15), "a stalled handshake was closed after \(stalled.1)")
                print("a stalled TLS handshake was closed after \(stalled.1)")

                let pin = try #require(
                    ShareServerProcess.value(after: "Key pin:", in: try server.process.standardOutput()))
                try server.plant("still.txt", "serving")
                let after = try await Self.curl(
                    ["-k", "--pinnedpubkey", pin, server.url + "still.txt"], server: server, scratch: scratch)
                #expect(after.stdout == "serving", "after the hostile connections: \(after.stderr)")
            }
        }
    }

    /// `curl -sS -u sandbox:CODE ARGUMENTS…` with a 30-second cap.
    static func curl(
        _ arguments: [String], server: ShareServerProcess, scratch: ScratchDirectory
    ) async throws -> ProgramOutput {
        try await ExternalTool.run(
            "curl", ["-sS", "--max-time", "30", "-u", "sandbox:\(server.code)"] + arguments, outputIn: scratch.path,
            timeout: .seconds(60))
    }

    /// Everything the server sends until it closes the connection (a reset counts as the end).
    static func readToEnd(_ connection: RawConnection) throws -> [UInt8] {
        var received: [UInt8] = []
        while true {
            let piece: [UInt8]
            do {
                piece = try connection.receive()
            } catch {
                // A timeout (the server kept the connection open) fails; a reset is an end.
                if "\(error)".contains("temporarily unavailable") { throw error }
                return received
            }
            if piece.isEmpty { return received }
            received += piece
        }
    }

    static func write(_ text: String, to path: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }
}
