import Foundation
import Glibc
import SandboxTesting

/// A real nginx on a free loopback port, started by a test with a generated configuration in a
/// temporary folder (`daemon off`; workers run as root when the tests do, as in CI, so they can
/// read the temporary folder), and stopped by ``stop()``.
///
/// The master process is kept: it resets its signal mask, whereas a single nginx process would
/// inherit the blocked signals of the test's thread and never see `SIGQUIT`.
///
/// Locations: `/files/` (plain, ranges), `/slow/` (`limit_rate` of `slowRate` for a request
/// without `Range`, unlimited for one with it: a first download crawls, so a test can always pause
/// it in time, and its resumption runs at full speed), `/gzip/` (gzip
/// on for every type), `/named/` (a `Content-Disposition` with `filename*`), `/redirect/N` (a chain
/// of N redirects to `/files/payload.bin`), `/text/` (`text/plain`), `/charset/NAME?charset=C`
/// (`text/plain; charset=C`, the value as given, quotes included; `charset` is required), and, when started with a `davRoot`, `/dav/` (that folder
/// with nginx's WebDAV methods for uploads: the sharing benchmark's peer). The access log records
/// `$bytes_sent`, so a test can count the bytes served.
public final class NginxServer: Sendable {
    /// Where the served files go (`/files/NAME` serves `documentRoot/NAME`).
    public let documentRoot: String
    /// The loopback TCP port it listens on.
    public let port: Int
    let scratch: ScratchDirectory
    var directory: String { scratch.path }
    let process: RunningProgram

    /// One access-log line.
    public struct LogLine: Sendable {
        /// The request's path (`$uri`: decoded, without the query).
        public var uri: String
        /// The answer's status.
        public var status: Int
        /// Header and body bytes written to the socket.
        public var bytesSent: Int
        /// The `Range` header in quotes, as logged (`"bytes=100-"`; `"-"` when there was none).
        public var range: String
    }

    /// Starts nginx; `slowRate` is `limit_rate`'s value for `/slow/` requests without `Range` (e.g.
    /// `512k`). With `davRoot`, `/dav/NAME` serves and writes `davRoot/NAME` (`dav_methods PUT DELETE
    /// MKCOL COPY MOVE`, no body size limit; request bodies are buffered in this server's temporary
    /// folder, which must be on the same file system as `davRoot` for the final rename to be one);
    /// `workers` is `worker_processes` (`auto`: one per core). Where Debian's dav-ext module is
    /// installed (``davExtensionModule``), `/dav/` also answers PROPFIND and OPTIONS
    /// (`dav_ext_methods`), the peer of the share's listings.
    ///
    /// - Throws: ``TestServerError`` when nginx is not installed or does not start within 10 s.
    public static func start(
        slowRate: String = "1m", davRoot: String? = nil, workers: String = "1"
    ) async throws -> NginxServer {
        guard
            let nginx = ["/usr/sbin/nginx", "/usr/bin/nginx", "/usr/local/sbin/nginx"].first(
                where: FileManager.default.isExecutableFile)
        else {
            throw TestServerError("nginx is not installed: apt-get install nginx")
        }
        removeAbandonedFolders()
        var lastError: (any Error)?
        for _ in 0..<5 {
            do {
                return try await launch(
                    nginx: nginx, port: try freePort(), slowRate: slowRate, davRoot: davRoot, workers: workers)
            } catch {
                lastError = error  // most likely the port was taken between probing and binding: try another
            }
        }
        throw lastError ?? TestServerError("nginx did not start")
    }

    private init(documentRoot: String, port: Int, scratch: ScratchDirectory, process: RunningProgram) {
        self.documentRoot = documentRoot
        self.port = port
        self.scratch = scratch
        self.process = process
    }

    private static func launch(
        nginx: String, port: Int, slowRate: String, davRoot: String?, workers: String
    ) async throws -> NginxServer {
        let scratch = try ScratchDirectory.make(prefix: "sandbox-nginx")
        let directory = scratch.path
        let root = directory + "/www"
        for folder in [root, directory + "/tmp"] {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        }
        let config = configuration(
            directory: directory, root: root, port: port, slowRate: slowRate, davRoot: davRoot, workers: workers)
        try config.write(toFile: directory + "/nginx.conf", atomically: true, encoding: .utf8)
        let arguments = ["-c", directory + "/nginx.conf", "-p", directory, "-e", directory + "/error.log"]
        let process = try BuiltProgram(path: nginx).start(arguments, outputIn: nil)
        let server = NginxServer(documentRoot: root, port: port, scratch: scratch, process: process)
        let started = await eventually(timeout: .seconds(10)) { canConnect(port: port) || !process.isRunning }
        guard started && process.isRunning else {
            await server.stop()
            let log = (try? String(contentsOfFile: directory + "/error.log", encoding: .utf8)) ?? ""  // none: no detail
            throw TestServerError("nginx did not start on port \(port): \(log)")
        }
        return server
    }

    /// How long an nginx folder whose server is gone is kept before a later start removes it.
    public static let abandonedAfter: TimeInterval = 3600

    /// Removes the `sandbox-nginx-*` folders in the scratch base (`$TMPDIR`) that an earlier
    /// program left behind: those whose nginx is not running (no `nginx.pid`, or one naming no
    /// process) and that nothing has touched for ``abandonedAfter``.
    ///
    /// ``stopAndRemoveFiles()`` and `deinit` remove a folder only when the program gets that far;
    /// a benchmark that ends by an error, `exit`, a crash or a signal (a timeout, Ctrl-C) never
    /// does — a top-level server is never deinitialized — and each such run left its folder, up to
    /// a GiB with the transfer benchmark's served file. The age keeps a folder whose nginx has
    /// stopped but whose program still reads its logs (``accessLog()`` after ``stop()``).
    public static func removeAbandonedFolders(in base: String = ScratchDirectory.base, now: Date = Date()) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? []  // unreadable: nothing to clean
        for name in names where name.hasPrefix("sandbox-nginx-") {
            let folder = base + "/" + name
            if let text = try? String(contentsOfFile: folder + "/nginx.pid", encoding: .utf8),  // none: stopped
                let pid = pid_t(text.trimmingCharacters(in: .whitespacesAndNewlines)),
                kill(pid, 0) == 0 || errno == EPERM
            {
                continue
            }
            let touched = ["", "/access.log", "/error.log"].compactMap { suffix in
                (try? FileManager.default.attributesOfItem(atPath: folder + suffix))?[.modificationDate] as? Date
            }
            guard let last = touched.max(), now.timeIntervalSince(last) > abandonedAfter else { continue }
            try? FileManager.default.removeItem(atPath: folder)  // clean-up only: one still in use stays
        }
    }

    /// Debian's `libnginx-mod-http-dav-ext`, loaded (`load_module`) when present.
    public static let davExtensionModule = "/usr/lib/nginx/modules/ngx_http_dav_ext_module.so"

    /// Whether ``davExtensionModule`` is installed: the `/dav/` location then answers PROPFIND.
    public static var answersPropfind: Bool { FileManager.default.fileExists(atPath: davExtensionModule) }

    static func configuration(
        directory: String, root: String, port: Int, slowRate: String, davRoot: String? = nil, workers: String = "1"
    ) -> String {
        var redirects = ""
        for step in 1...5 {
            let target = step == 1 ? "/files/payload.bin" : "/redirect/\(step - 1)"
            redirects += "        location = /redirect/\(step) { return 302 \(target); }\n"
        }
        let propfind = davRoot != nil && answersPropfind
        let dav =
            davRoot.map { davRoot in
                """
                        location /dav/ {
                            alias \(davRoot)/;
                            dav_methods PUT DELETE MKCOL COPY MOVE;\(propfind ? "\n            dav_ext_methods PROPFIND OPTIONS;" : "")
                            create_full_put_path on;
                            dav_access user:rw group:r all:r;
                            client_max_body_size 0;
                        }

                """
            } ?? ""
        return """
            \(propfind ? "load_module \(davExtensionModule);" : "")
            \(geteuid() == 0 ? "user root root;" : "")
            worker_processes \(workers);
            daemon off;
            pid \(directory)/nginx.pid;
            error_log \(directory)/error.log warn;
            events { worker_connections 512; }
            http {
                log_format transfer '$uri $status $bytes_sent "$http_range"';
                access_log \(directory)/access.log transfer;
                map $http_range $slow_rate { "" \(slowRate); default 0; }
                default_type application/octet-stream;
                sendfile on;
                keepalive_requests 100000;
                client_body_temp_path \(directory)/tmp/body;
                proxy_temp_path \(directory)/tmp/proxy;
                fastcgi_temp_path \(directory)/tmp/fastcgi;
                uwsgi_temp_path \(directory)/tmp/uwsgi;
                scgi_temp_path \(directory)/tmp/scgi;
                server {
                    listen 127.0.0.1:\(port);
                    location /files/ { alias \(root)/; }
                    location /slow/ { alias \(root)/; limit_rate $slow_rate; }
                    location /gzip/ { alias \(root)/; gzip on; gzip_types *; gzip_min_length 0; }
                    location /text/ { alias \(root)/; types { } default_type text/plain; }
                    location /charset/ { alias \(root)/; types { } default_type text/plain; charset $arg_charset; charset_types text/plain; }
                    location /named/ { alias \(root)/; add_header Content-Disposition "attachment; filename=\\"fallback.txt\\"; filename*=UTF-8''r%C3%A9sum%C3%A9%20final.pdf"; }
            \(redirects)\(dav)    }
            }
            """
    }

    /// `http://127.0.0.1:<port><path>`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    /// Writes a file to serve under `/files/<name>` (and `/slow/`, `/gzip/`, `/named/`).
    public func serve(_ bytes: [UInt8], as name: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: documentRoot + "/" + name))
    }

    /// The access log so far (nginx writes each line when a request ends).
    public func accessLog() -> [LogLine] {
        // no log yet: no lines
        let text = (try? String(contentsOfFile: directory + "/access.log", encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", maxSplits: 3)
            guard fields.count >= 3, let status = Int(fields[1]), let bytes = Int(fields[2]) else { return nil }
            return LogLine(
                uri: String(fields[0]), status: status, bytesSent: bytes,
                range: fields.count > 3 ? String(fields[3]) : "")
        }
    }

    /// Stops nginx (gracefully: requests in progress end first) and waits for it. The access log
    /// stays readable until the server object goes away.
    public func stop() async {
        process.signal(SIGQUIT)
        _ = await process.exit(timeout: .seconds(30))
    }

    /// Stops nginx as ``stop()`` does, then removes its folder: configuration, logs, request-body
    /// buffers and served files. For a program whose server lives until it exits — a top-level
    /// `let` in a benchmark's `main.swift` is never deinitialized, and its folder (a GiB after an
    /// upload) would stay behind in `$TMPDIR`.
    public func stopAndRemoveFiles() async {
        await stop()
        scratch.remove()
    }

    deinit {
        process.signal(SIGQUIT)  // a no-op once stopped
        scratch.remove()
    }
}

/// An error of the test servers.
public struct TestServerError: Error, CustomStringConvertible {
    /// What went wrong.
    public var description: String
    /// An error saying `description`.
    public init(_ description: String) { self.description = description }
}

/// A free loopback TCP port, found by binding port 0.
public func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestServerError("socket: errno \(errno)") }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
            bind(fd, socketAddress, length) == 0 && getsockname(fd, socketAddress, &length) == 0
        }
    }
    guard bound else { throw TestServerError("bind: errno \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
}

func canConnect(port: Int) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { return false }
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = UInt16(port).bigEndian
    return withUnsafePointer(to: &address) { pointer in
        pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
        }
    }
}
