import Foundation
import Glibc
import SandboxTesting

/// nginx inside a ``NetworkNamespace``, listening on its address: `/files/NAME` plain, `/slow/NAME`
/// at `limit_rate` `slowRate` for a request without `Range` (a resumption runs at full speed).
struct NamespacedNginx {
    let process: RunningProgram
    let root: String
    let address: String
    static let port = 8080

    static func start(in namespace: NetworkNamespace, slowRate: String) async throws -> NamespacedNginx {
        let directory = namespace.scratch + "/nginx"
        let root = directory + "/www"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let config = """
            user root root;
            worker_processes 1;
            daemon off;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 64; }
            http {
                access_log \(directory)/access.log;
                map $http_range $slow_rate { "" \(slowRate); default 0; }
                default_type application/octet-stream;
                client_body_temp_path \(directory)/body;
                proxy_temp_path \(directory)/proxy;
                fastcgi_temp_path \(directory)/fastcgi;
                uwsgi_temp_path \(directory)/uwsgi;
                scgi_temp_path \(directory)/scgi;
                server {
                    listen \(namespace.peerAddress):\(port);
                    location /files/ { alias \(root)/; }
                    location /slow/ { alias \(root)/; limit_rate $slow_rate; }
                }
            }
            """
        try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        let process = try namespace.start(["/usr/sbin/nginx", "-c", directory + "/nginx.conf", "-p", directory])
        let server = NamespacedNginx(process: process, root: root, address: namespace.peerAddress)
        let listening = await eventually(timeout: .seconds(20)) {
            server.canConnect() || !process.isRunning
        }
        guard listening, process.isRunning else {
            await server.stop()
            let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""  // none: no detail
            throw TestFailure("nginx did not start in \(namespace.name): \(log)")
        }
        return server
    }

    func url(_ path: String) -> String { "http://\(address):\(Self.port)\(path)" }

    func serve(_ bytes: [UInt8], as name: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: root + "/" + name))
    }

    func stop() async {
        process.signal(SIGQUIT)
        _ = await process.exit(timeout: .seconds(20))  // killed past it
    }

    private func canConnect() -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var target = sockaddr_in()
        target.sin_family = sa_family_t(AF_INET)
        target.sin_addr.s_addr = inet_addr(address)
        target.sin_port = UInt16(Self.port).bigEndian
        return withUnsafePointer(to: &target) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}
