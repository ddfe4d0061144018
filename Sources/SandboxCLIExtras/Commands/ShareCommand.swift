import ArgumentParser
import CSandboxShims
import Glibc
import Logging
import Sandbox
import SandboxCLISupport
import SandboxShare

struct Share: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: ExtraCommand.share.name,
        abstract: ExtraCommand.share.abstract,
        // Written out: past a width the generated one shrinks to `[<options>]`.
        usage: """
            sandbox share <app> [--bind <bind>] [--port <port>] [--read-only] [--max-upload <max-upload>]
                                [--tls | --tls-cert <tls-cert> --tls-key <tls-key>] [--insecure] [--qr] [--qr-ascii]
            sandbox share <app> --devices
            sandbox share <app> --revoke <revoke>
            """,
        discussion: """
            Prints the URL, the user name and a fresh pairing code; connect with Finder (Go > Connect to \
            Server), Windows (Map network drive), rclone, cadaver or davfs2, giving the code as the password. \
            Only Documents is shared, without its Inbox and names starting with '.'. Listens on 127.0.0.1 \
            unless --bind names another address. One log line per request on standard error. SIGINT or \
            SIGTERM stops it once requests in flight end. While the app is restored or uninstalled, or the device \
            locks, changes are refused (503, retry) and reads go on; after a restore the restored \
            Documents is shared; after an uninstall the share stops (status 0). With --tls it serves HTTPS \
            with this device's own certificate (made on first use, kept in the home's Device/Share/) and \
            prints its SHA-256 fingerprint and key pin to check it by; --tls-cert and --tls-key serve a \
            certificate you bring instead. An address beyond this machine needs TLS, or --insecure. \
            It also prints a pairing link, and its QR code when standard output is a terminal (or with --qr): \
            a phone that scans it is logged in to the web page at once, without the code; the link works \
            once, for 10 minutes. --devices lists the browsers logged in to the running share of the app \
            (by the form or a pairing link), --revoke ID logs one out. \
            Shared beyond this machine, the share announces itself on the local network (DNS-SD/mDNS, \
            through avahi-daemon) as '<app> on <host>', which Finder and other browsers list: --no-announce \
            keeps it quiet; --announce announces a loopback share to this machine too.
            """
    )

    @OptionGroup var app: AppArgument
    @Option(help: "The address to listen on; 0.0.0.0 shares with the whole network.")
    var bind = "127.0.0.1"
    @Option(help: "The TCP port; 0 picks a free one.")
    var port = 8080
    @Flag(help: "Refuse every change: clients can only list and download.")
    var readOnly = false
    @Option(help: "The largest upload accepted, e.g. 500M or 4G (default: no limit but the disk).")
    var maxUpload: String?
    @Flag(
        help: "Serve HTTPS with this device's certificate (made on first use; its fingerprint and key pin are printed)."
    )
    var tls = false
    @Option(help: "Serve HTTPS with this certificate chain (PEM, the server's certificate first).")
    var tlsCert: String?
    @Option(help: "The private key of --tls-cert (PEM, not encrypted).")
    var tlsKey: String?
    @Flag(
        help:
            "Listen beyond this machine without TLS: the documents and the pairing code cross the network in the clear."
    )
    var insecure = false
    @Flag(help: "Print the pairing link's QR code even when standard output is not a terminal.")
    var qr = false
    @Flag(help: "Draw the QR code with '#' and spaces, for a terminal without colours (implies --qr).")
    var qrAscii = false
    @Flag(help: "List the browsers logged in to this app's running share (ID, device, since when), and exit.")
    var devices = false
    @Option(help: "Log out the browser ID of --devices from this app's running share, and exit.")
    var revoke: String?
    @Flag(
        inversion: .prefixedNo,
        help: """
            Announce the share on the local network (DNS-SD/mDNS, through avahi-daemon); the default \
            when --bind is beyond this machine.
            """)
    var announce: Bool?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        if let maxUpload, ByteSize.parse(maxUpload) == nil {
            throw ValidationError("--max-upload takes a size such as 100M, 4G or 1048576, not '\(maxUpload)'.")
        }
        guard (tlsCert == nil) == (tlsKey == nil) else {
            throw ValidationError("--tls-cert and --tls-key go together: give the certificate and its key.")
        }
        if !ShareConfiguration.isLoopback(bind) && !tls && tlsCert == nil && !insecure {
            throw ValidationError(
                "Sharing on \(bind) without TLS sends the documents and the pairing code in the clear: add --tls "
                    + "(or --tls-cert and --tls-key), or --insecure to accept that.")
        }
    }

    func run() async throws {
        CaughtSignals.unblock(CaughtSignals.stopping)
        Self.boundMallocMemory()
        let container = try app.container()
        if devices || revoke != nil {
            try manageDevices(of: container)
            return
        }
        let credentials = ShareCredentials(user: "sandbox", password: PairingCode.generate())
        var settings = ShareConfiguration(
            host: bind, port: port, readOnly: readOnly, maximumUploadSize: maxUpload.flatMap(ByteSize.parse),
            credentials: credentials, pairingToken: PairingToken.generate())
        if let tlsCert, let tlsKey {
            settings.tls = try ShareTLSIdentity(certificateFile: tlsCert, keyFile: tlsKey)
        } else if tls {
            settings.tls = try DeviceCertificate.identity(in: container.home, for: settings)
        }
        if announce ?? !ShareConfiguration.isLoopback(bind) {
            settings.announcement = ShareAnnouncement(
                name: try ShareAnnouncement.name(of: container), report: Self.printDiscovery)
        }
        let configuration = settings
        let logger = StandardErrorLogHandler.logger(label: "sandbox.share")
        let server = try ShareServer(container: container, configuration: configuration, logger: logger)
        if !configuration.isLoopback {
            StandardStreams.error(
                "warning: listening on \(bind): anyone on the network who has the pairing code can "
                    + (readOnly ? "read" : "read and change") + " these documents.\n")
            if configuration.tls == nil {
                StandardStreams.error(
                    "warning: without TLS, anyone on the network can read the documents and the pairing code "
                        + "as they pass.\n")
            }
        }
        let identifier = container.identifier
        defer { StandardErrorLog.shared.flush() }
        try await server.run { port in
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            var text = """
                Sharing the Documents of \(identifier) (\(readOnly ? "read-only" : "read-write"))
                  URL:          \(configuration.scheme)://\(host):\(port)/
                  User:         \(credentials.user)
                  Pairing code: \(credentials.password)
                """
            if let announcement = configuration.announcement {
                text += "\n  Announced:    \(announcement.name)"
            }
            if let tls = configuration.tls {
                text += """

                      Certificate:  SHA-256 \(tls.fingerprint)
                      Key pin:      sha256//\(tls.publicKeyPin)
                    """
            }
            if let token = configuration.pairingToken {
                let link = "\(configuration.scheme)://\(host):\(port)\(token.path)"
                text += "\n  Pair a phone: \(link)"
                text +=
                    "\n                (logs in one browser, once, within \(PairingToken.lifetime.components.seconds / 60) minutes)"
                if qr || qrAscii || isatty(STDOUT_FILENO) == 1 {
                    do {
                        text += "\n" + (try QRCode(link).terminalText(ascii: qrAscii))
                    } catch {
                        StandardStreams.error("sandbox: \(error)\n")
                    }
                }
            }
            text += "\nPress Ctrl-C to stop."
            do { try Output.line(text) } catch { StandardStreams.error("sandbox: \(error)\n") }
        }
    }
}

extension Share {
    /// `--devices` and `--revoke ID`: the running share's device list (``DeviceSessions``).
    fileprivate func manageDevices(of container: Container) throws {
        let list = try DeviceSessions(home: container.home, app: container.identifier)
        if let revoke {
            guard try list.revoke(id: revoke) else {
                throw SandboxError(
                    .notFound, "No browser '\(revoke)' is logged in to the share of \(container.identifier).")
            }
            try Output.line("Logged out \(revoke): its next request goes to the login page.")
            return
        }
        let entries = try list.list()
        guard !entries.isEmpty else {
            try Output.line("No browser is logged in to the share of \(container.identifier).")
            return
        }
        let width = max(6, entries.map(\.label.count).max() ?? 0)
        func padded(_ text: String, _ length: Int) -> String {
            text + String(repeating: " ", count: max(0, length - text.count))
        }
        var lines = [padded("ID", 10) + padded("DEVICE", width) + "  SINCE"]
        for entry in entries {
            lines.append(padded(entry.id, 10) + padded(entry.label, width) + "  " + entry.since)
        }
        try Output.line(lines.joined(separator: "\n"))
    }

    /// Prints what becomes of the announcement on standard error (from Avahi's thread).
    fileprivate static func printDiscovery(_ event: DiscoveryEvent) {
        switch event {
        case .announced:
            break  // the name was printed with the URL
        case .renamed(let previous, let name):
            StandardStreams.error(
                "notice: another service on the network is named '\(previous)': the share is announced as "
                    + "'\(name)'.\n")
        case .unavailable(let error), .failed(let error):
            StandardStreams.error("notice: \(error.message)\n")
        case .daemonLost:
            StandardStreams.error(
                "notice: avahi-daemon stopped: the share is no longer announced, and is announced again when the "
                    + "daemon returns.\n")
        }
    }

    /// Keeps glibc's allocator from caching freed transfer buffers per thread: by default each
    /// thread that allocates under contention gets an arena of its own (up to 8 per core), and
    /// the 128 KiB chunks of transfers end up held in several of them — a 1 GiB download under
    /// load once peaked 30 MiB higher. Two arenas are enough for a server whose work runs on
    /// a few threads. (Mapping every large block instead, `M_MMAP_THRESHOLD`, halved the large
    /// transfers' throughput: measured, and not kept.)
    fileprivate static func boundMallocMemory() {
        csb_limit_malloc_arenas(2)
    }
}

/// A size on the command line: bytes, or a number with K, M, G or T (powers of 1024).
enum ByteSize {
    static func parse(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40]
        var digits = Substring(text.uppercased())
        if digits.hasSuffix("IB") {
            digits = digits.dropLast(2)
        } else if digits.hasSuffix("B") {
            digits = digits.dropLast()
        }
        var multiplier: Int64 = 1
        if let last = digits.last, let unit = units[last] {
            multiplier = unit
            digits = digits.dropLast()
        }
        guard let value = Int64(digits), value >= 0 else { return nil }
        let (product, overflow) = value.multipliedReportingOverflow(by: multiplier)
        return overflow ? nil : product
    }
}
