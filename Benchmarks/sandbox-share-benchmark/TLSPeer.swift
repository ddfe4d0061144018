import Foundation
import Glibc
import SandboxTransferTesting

/// A P-256 certificate for `127.0.0.1` and its key, made with openssl in `scratch`: the one
/// certificate both servers present in the TLS rows (`--tls-cert`/`--tls-key` for the share,
/// `ssl_certificate`/`ssl_certificate_key` for nginx), so both do the same handshakes.
func makeCertificate(in scratch: String) async throws -> (certificate: String, key: String) {
    let openssl = BuiltProgram(path: try tool("openssl"))
    let key = scratch + "/tls-key.pem"
    let certificate = scratch + "/tls-cert.pem"
    for arguments in [
        ["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", key],
        [
            "req", "-new", "-x509", "-key", key, "-out", certificate, "-days", "2", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1",
        ],
    ] {
        let output = try await openssl.run(arguments, outputIn: scratch, timeout: .seconds(30))
        guard output.exit == .exited(0) else { throw BenchmarkFailure("openssl \(arguments[0]): \(output.stderr)") }
    }
    return (certificate, key)
}

/// nginx serving `root` over HTTPS only (`listen … ssl`, HTTP/1.1, the certificate given), one
/// worker per core, `sendfile on` as Debian ships it (which TLS without kTLS does not use: nginx
/// reads the file and encrypts it in user space, 16 KiB records, `ssl_buffer_size 16k`).
struct TLSNginx {
    let process: RunningProgram
    let port: Int
    let folder: String

    static func start(root: String, certificate: String, key: String, scratch: String) async throws -> TLSNginx {
        let folder = scratch + "/nginx-tls"
        try FileManager.default.createDirectory(atPath: folder + "/tmp", withIntermediateDirectories: true)
        let port = try freePort()
        let configuration = """
            \(geteuid() == 0 ? "user root root;" : "")
            worker_processes auto;
            daemon off;
            pid \(folder)/nginx.pid;
            error_log \(folder)/error.log warn;
            events { worker_connections 512; }
            http {
                access_log off;
                sendfile on;
                keepalive_requests 1000000;
                client_body_temp_path \(folder)/tmp;
                proxy_temp_path \(folder)/tmp;
                fastcgi_temp_path \(folder)/tmp;
                uwsgi_temp_path \(folder)/tmp;
                scgi_temp_path \(folder)/tmp;
                server {
                    listen 127.0.0.1:\(port) ssl;
                    ssl_certificate \(certificate);
                    ssl_certificate_key \(key);
                    location /dav/ { alias \(root)/; }
                }
            }
            """
        try configuration.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        let process = try BuiltProgram(path: try tool("nginx")).start(
            ["-c", folder + "/nginx.conf", "-p", folder, "-e", folder + "/error.log"], outputIn: nil)
        let started = await eventually(timeout: .seconds(10)) {
            nginxProcesses(documentRoot: folder + "/www").count > 1 || !process.isRunning
        }
        guard started, process.isRunning else {
            process.signal(SIGKILL)
            let log = (try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? ""  // none: no detail
            throw BenchmarkFailure("nginx with TLS did not start: \(log)")
        }
        return TLSNginx(process: process, port: port, folder: folder)
    }

    func url(_ path: String) -> String { "https://127.0.0.1:\(port)\(path)" }

    /// The master and its workers, for the CPU time they use.
    var processes: [Int32] { nginxProcesses(documentRoot: folder + "/www") }

    func stop() async {
        process.signal(SIGQUIT)
        _ = await process.exit(timeout: .seconds(30))
    }
}
