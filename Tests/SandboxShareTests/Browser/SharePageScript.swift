import Foundation
import SandboxTesting
import Testing

/// `share_page.py` (beside this file): Selenium driving headless Chromium through the Documents
/// page of a running `sandbox share`, one scenario a run.
///
/// It runs on Debian's Python (`/usr/bin/python3`, where `python3-selenium` installs) when that has
/// Selenium, else on the `python3` on `PATH`.
enum SharePageScript {
    /// The scenarios the script knows.
    enum Scenario: String, Sendable {
        /// Log in, uploads, folders, move, rename, delete, downloads, live refresh, screenshots.
        case page
        /// Logged-out requests, the cookie's flags, CSRF and a cross-site form post.
        case security
        /// Logged in, the browser visits another service on another port of 127.0.0.1: it gets no
        /// session cookie, and what it got, replayed, reads nothing.
        case leak
        /// A page on another port posts wrong codes to the login form; the owner then logs in.
        case lockout
        /// `SCRATCH/large.bin` uploaded from the page: cancelled midway, then to the end, timed.
        case large
        /// A 2 MB upload against a server started with `--max-upload 1M`.
        case limit
        /// The filter's folding, the Uploads panel, a refused folder upload's folders, touch
        /// targets (a server started with `--max-upload 1M`).
        case details
        /// Over HTTPS (a server started with `--tls`): log in, the Secure cookie, list, upload.
        case tls
        /// `Documents/Big`'s many files: the first screen's time, then scrolling to the last row.
        case listing
        /// The owner's Devices section: a second browser paired with `SHARE_PAIRING_LINK` is
        /// listed, revoked, and logged out at its next request.
        case devices
        /// Over HTTPS: the pairing link (`SHARE_PAIRING_LINK`) logs in once, with the fingerprint
        /// (`SHARE_FINGERPRINT`) shown; a second visit without the cookie is refused.
        case pairing
    }

    /// What the script printed on its `RESULT` line.
    struct Result: Decodable, Sendable {
        var ok = false
        var failed: String?
        var error: String?
        var checks: [String]?
        var console: [String]?
        var loginError: String?
        var nameTakenMessage: String?
        var liveSeconds: Double?
        var pageSeconds: Double?
        var scrollSeconds: Double?
        var cancelledAtPercent: Int?
        var progressSamples: [Int]?
        var crossSiteAnswer: String?
        var otherServiceCookies: [String]?
        var limitMessage: String?
        var limitRow: String?
    }

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
        "share_page.py"
    ).path

    /// The repository's root (for the screenshot artifacts).
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let debianPython = "/usr/bin/python3"

    /// Whether the browser tests should run: Chromium, its driver and Selenium are installed, or
    /// this is CI (where `scripts/install-test-tools` installs them, so a missing one fails).
    static var available: Bool {
        ProcessInfo.processInfo.environment["CI"] == "true"
            || (ExternalTool.path(of: "chromium") != nil && ExternalTool.path(of: "chromedriver") != nil
                && python != nil)
    }

    /// A Python with Selenium: Debian's, or the one on `PATH` when that one has it (pip).
    static var python: String? {
        let candidates = [debianPython, ExternalTool.path(of: "python3")].compactMap { $0 }
        return candidates.first { hasSelenium($0) }
    }

    /// Whether Selenium is in one of the folders `interpreter` imports from (looked for on disk:
    /// `enabled(if:)` cannot wait for a process).
    private static func hasSelenium(_ interpreter: String) -> Bool {
        guard FileManager.default.isExecutableFile(atPath: interpreter) else { return false }
        if interpreter == debianPython {
            return FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/selenium")
                || sitePackages(under: "/usr/local/lib").contains {
                    FileManager.default.fileExists(atPath: $0 + "/selenium")
                }
        }
        // A Python of its own (pyenv, a venv): its lib/python3.*/site-packages.
        let resolved = URL(fileURLWithPath: interpreter).resolvingSymlinksInPath()
        let prefix = resolved.deletingLastPathComponent().deletingLastPathComponent().path
        return sitePackages(under: prefix + "/lib").contains {
            FileManager.default.fileExists(atPath: $0 + "/selenium")
        }
    }

    private static func sitePackages(under lib: String) -> [String] {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: lib)) ?? []  // no such folder: none
        return versions.filter { $0.hasPrefix("python3") }.flatMap {
            ["\(lib)/\($0)/site-packages", "\(lib)/\($0)/dist-packages"]
        }
    }

    /// Runs `scenario` against `server`, with `scratch` as the script's own folder; records an
    /// issue (with the failing check, the browser's console and the server's log) unless every
    /// check passed.
    ///
    /// - Throws: ``TestFailure`` when there is no Python with Selenium or the script printed no
    ///   result (it crashed or hung).
    @discardableResult
    static func run(
        _ scenario: Scenario, on server: ShareServerProcess, scratch: ScratchDirectory,
        timeout: Duration = .seconds(300), publicKeyPin: String? = nil, environment: [String: String] = [:]
    ) async throws -> Result {
        guard let python else {
            throw TestFailure(
                "no Python with Selenium: apt-get install python3-selenium (scripts/install-test-tools does)")
        }
        let output = try await BuiltProgram(path: python).run(
            [script, server.url, server.code, scratch.path, scenario.rawValue, server.documents],
            environment: [
                "HOME": scratch.path, "PYTHONDONTWRITEBYTECODE": "1", "SHARE_SPKI_PIN": publicKeyPin ?? "",
            ].merging(environment) { _, given in given },
            outputIn: scratch.path,
            timeout: timeout)
        let line = output.stdout.split(separator: "\n").last { $0.hasPrefix("RESULT ") }
        guard let line else {
            throw TestFailure(
                "share_page.py \(scenario) printed no result (\(output.exit)): \(output.stdout.suffix(2000))\n"
                    + "\(output.stderr.suffix(3000))")
        }
        let result = try JSONDecoder().decode(Result.self, from: Data(line.dropFirst("RESULT ".count).utf8))
        #expect(
            output.exit == .exited(0) && result.ok,
            """
            share_page.py \(scenario) failed at “\(result.failed ?? "?")”: \(result.error ?? "no error")
            console: \(result.console ?? [])
            steps: \(output.stdout.suffix(1500))
            server: \(server.log().suffix(2000))
            """)
        return result
    }

    /// Copies `name` from `scratch` to `.build/test-artifacts/` in the repository, where a person
    /// (or CI) looks at it; returns the copy's path.
    @discardableResult
    static func keepArtifact(_ name: String, from scratch: ScratchDirectory) throws -> String {
        let folder = repository.appendingPathComponent(".build/test-artifacts")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let target = folder.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
        try FileManager.default.copyItem(atPath: scratch.appending(name), toPath: target.path)
        return target.path
    }
}
