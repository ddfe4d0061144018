// swift-tools-version: 6.1
import PackageDescription

// Linux only: confinement is built on openat2, statx, inotify and Landlock, which have no
// equivalent with the same guarantees on Darwin. Hence no `platforms:` entry.

/// One set of settings for every Swift target: Swift 6 mode, strict concurrency, explicit `any`.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// How `sandbox` and `sandbox-extras` are built to start fast: the Swift runtime and Foundation
/// static (compiled with -static-stdlib too, for the static Foundation module's link entries); lld
/// for packed relative relocations (DT_RELR: 98,000 relocations the loader applied one by one at
/// each start); only the symbols the shared libraries need exported (`dladdr` at start-up walked
/// all 18,000). BENCHMARKS.md, issue 15. No test target depends on these executables: the flags
/// would apply to the test bundle's link (which needs the shared XCTest); `swift build
/// --build-tests` and `swift test` build them anyway.
let quickStart = (
    swift: [SwiftSetting.unsafeFlags(["-static-stdlib"])],
    linker: [
        LinkerSetting.unsafeFlags([
            "-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker",
            "--no-export-dynamic",
        ])
    ]
)

let package = Package(
    name: "Sandbox",
    products: [
        .library(name: "SandboxCore", targets: ["SandboxCore"]),
        .library(name: "Sandbox", targets: ["Sandbox"]),
        .library(name: "SandboxWatch", targets: ["SandboxWatch"]),
        .library(name: "SandboxStore", targets: ["SandboxStore"]),
        .library(name: "SandboxTransfer", targets: ["SandboxTransfer"]),
        .library(name: "SandboxShare", targets: ["SandboxShare"]),
        .library(name: "SandboxBackup", targets: ["SandboxBackup"]),
        .executable(name: "sandbox", targets: ["SandboxCLI"]),
        // The `sandbox` commands that download, share and back up: `sandbox` runs them from here.
        .executable(name: "sandbox-extras", targets: ["SandboxCLIExtras"]),
        // The background-transfer daemon apps start on demand.
        .executable(name: "sandboxd", targets: ["sandboxd"]),
        // Test servers (nginx, a fault-injecting HTTP server) for this package's tests and
        // benchmarks, and for anyone testing code built on SandboxTransfer.
        .library(name: "SandboxTransferTesting", targets: ["SandboxTransferTesting"]),
        // The soak harness (issue 28), run by its test and by Benchmarks' sandbox-soak-benchmark.
        .library(name: "SandboxSoak", targets: ["SandboxSoak"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // The sharing server. Its default traits pull in swift-configuration, which nothing here uses.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        // Imported directly, so declared (already in the graph through async-http-client and hummingbird).
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.1.0"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.0.0"),
        // The share over HTTPS: TLS, and its device certificate (already in the graph through
        // async-http-client, so built already).
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1", from: "1.7.4"),
    ],
    targets: [
        // C wrappers for what the Glibc module does not expose (openat2, statx, renameat2, xattrs, …).
        .target(name: "CSandboxShims"),

        // libqrencode: the QR code of the share's pairing link (`sandbox share`).
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),

        // The SQLite VFS that opens a container's databases beneath a directory descriptor. Links
        // the system SQLite, as GRDB's GRDBSQLite does on Linux: one SQLite in the process.
        .target(name: "CSandboxSQLite", linkerSettings: [.linkedLibrary("sqlite3")]),

        // Avahi's client library (libavahi-client, D-Bus to the system's avahi-daemon): the share
        // announces itself over DNS-SD/mDNS with it. scripts/install-build-deps installs it. Its
        // headers and libraries are in the system's paths; no `pkgConfig:`, whose `-D_REENTRANT`
        // SwiftPM refuses with a warning at every build.
        .systemLibrary(name: "CAvahiClient", providers: [.apt(["libavahi-client-dev"])]),

        // libzstd: backup blobs compressed one by one (SandboxBackup/Compression, issue 30).
        // scripts/install-build-deps installs it.
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),

        // Paths, confinement, file and folder operations, the I/O engine, metadata, the error type.
        .target(
            name: "SandboxCore",
            dependencies: [
                "CSandboxShims",
                .product(name: "SystemPackage", package: "swift-system"),
                // The discarding logger every library defaults to (Runtime/Logging).
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // The device home, containers and their policies, search paths, signed bundles, lifecycle.
        .target(
            name: "Sandbox",
            dependencies: [
                "CSandboxShims",
                "SandboxCore",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // The folder monitor (inotify) and Inbox processing.
        .target(
            name: "SandboxWatch",
            dependencies: [
                "SandboxCore", .product(name: "SystemPackage", package: "swift-system"),
                "Sandbox", "CSandboxShims",
                // Data Protection: an Inbox with a protection class gets its deliveries sealed.
                "SandboxStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // Property lists, versioned archives, preferences, the keychain and SQLite databases.
        .target(
            name: "SandboxStore",
            dependencies: [
                "SandboxCore",
                "Sandbox",
                "CSandboxShims",
                // Databases open beneath their folder's descriptor.
                "CSandboxSQLite",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
                // scrypt (the passcode, backup passwords).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),

        // Download sessions on async-http-client: resume data, checkpoints, retries.
        .target(
            name: "SandboxTransfer",
            dependencies: [
                "SandboxCore", .product(name: "Tracing", package: "swift-distributed-tracing"),
                "Sandbox",
                // Data Protection: a finished file handed to a protected folder is sealed with its class.
                "SandboxStore",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                // sandboxd's client: the Unix socket to the daemon.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),

        // File sharing: Documents over WebDAV (and the web page) on Hummingbird.
        .target(
            name: "SandboxShare",
            dependencies: [
                "SandboxCore", "CSandboxShims", .product(name: "HTTPTypes", package: "swift-http-types"),
                "CQRencode",
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "NIOPosix", package: "swift-nio"),
                "Sandbox",
                "SandboxWatch",
                // Data Protection: uploads into a folder with a protection class are sealed with it.
                "SandboxStore",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                // Announcing the share over DNS-SD/mDNS (Discovery/).
                "CAvahiClient",
            ],
            // The web page's HTML, CSS and script, served as they are.
            resources: [.copy("Web/Resources")],
            swiftSettings: swiftSettings
        ),

        // MARK: Background transfers (sandboxd)
        // The daemon: the socket server, the durable event queue, the sessions it runs.
        .target(
            name: "SandboxDaemon",
            dependencies: [
                "SandboxCore", .product(name: "SystemPackage", package: "swift-system"),
                "Sandbox", "CSandboxShims",
                "SandboxStore",
                "SandboxTransfer",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // `sandboxd`: parsing only.
        .executableTarget(
            name: "sandboxd",
            dependencies: [
                "Sandbox", "SandboxTransfer", "SandboxDaemon",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // MARK: Backup and restore (SandboxBackup)
        // Incremental, verifiable snapshots of containers in a content-addressed repository.
        .target(
            name: "SandboxBackup",
            dependencies: [
                "Sandbox",
                "SandboxWatch",  // restore --to-inbox delivers through the Inbox
                "SandboxTransfer",
                "CSandboxShims",
                "SandboxStore",
                "SandboxCore",
                "CZstd",  // blobs compressed with zstd (Compression/)
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // A backup or a restore the kill tests end with SIGKILL at random moments.
        .executableTarget(
            name: "sandbox-backup-harness",
            dependencies: ["Sandbox", "SandboxCore", "SandboxBackup"],
            path: "Tests/Harnesses/BackupHarness",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SandboxBackupTests",
            dependencies: [
                "Sandbox", "SandboxCore", "SandboxStore", .product(name: "SystemPackage", package: "swift-system"),
                "SandboxBackup", "SandboxTesting", "sandbox-backup-harness",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The iOS backup fixture scripts (Python).
            exclude: ["Fixtures", "IOSBackupFixtures"],
            swiftSettings: swiftSettings
        ),
        // MARK: End of backup and restore

        // The command-line tool: parsing and printing only. `sandbox` links what its quick commands
        // need, with the Swift runtime static, so that it starts in a few milliseconds; it hands the
        // commands that need the HTTP client, the sharing server or backups to `sandbox-extras`
        // (beside it) with execv.
        .target(
            name: "SandboxCLISupport",
            dependencies: [
                "Sandbox",
                "SandboxStore",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "SandboxCLI",
            dependencies: [
                "Sandbox",
                "SandboxWatch",
                "SandboxStore",
                "SandboxCLISupport",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings + quickStart.swift,
            linkerSettings: quickStart.linker
        ),
        .executableTarget(
            name: "SandboxCLIExtras",
            dependencies: [
                "SandboxCore",
                "CSandboxShims",
                "Sandbox",
                "SandboxTransfer",
                // sandboxd's queue, read (read-only) while the daemon is not running.
                "SandboxDaemon",
                "SandboxShare",
                "SandboxBackup",
                "SandboxCLISupport",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings + quickStart.swift,
            linkerSettings: quickStart.linker
        ),

        // Test support shared by every test target: scratch directories under $TMPDIR, waiting on
        // conditions, the one runner of the built executables (the CLI, the crash and store harnesses).
        .target(
            name: "SandboxTesting",
            dependencies: [
                .product(name: "Logging", package: "swift-log"),  // CapturedLog
                "SandboxCore",  // BlockedPool's bounded wait
            ],
            path: "Tests/Support/SandboxTesting", swiftSettings: swiftSettings),

        // Test support: the servers the download tests and benchmarks run against (nginx, the fault
        // server), on top of SandboxTesting, which it re-exports. Kept apart so that only the targets
        // that test downloads depend on SwiftNIO.
        .target(
            name: "SandboxTransferTesting",
            dependencies: [
                "SandboxTesting",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/Support/SandboxTransferTesting",
            swiftSettings: swiftSettings
        ),

        // Processes the tests start: one killed with SIGKILL mid-write, one of several
        // preference writers running at once.
        .executableTarget(
            name: "sandbox-crash-harness",
            dependencies: ["SandboxCore"],
            path: "Tests/Harnesses/CrashHarness",
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "sandbox-store-harness",
            dependencies: ["SandboxStore"],
            path: "Tests/Harnesses/StoreHarness",
            swiftSettings: swiftSettings
        ),
        // MARK: sandbox run
        // A small C program the `sandbox run` tests execute confined (open, link, connect, kill, …).
        // Linked with the Swift runtime static: SwiftPM links every executable with libswiftCore,
        // whose folder (the toolchain's) the sandbox cannot read.
        .executableTarget(
            name: "sandbox-run-probe", path: "Tests/Harnesses/RunProbe",
            linkerSettings: [.unsafeFlags(["-static-stdlib"])]
        ),

        .testTarget(
            name: "SandboxCoreTests",
            dependencies: [
                "CSandboxShims", .product(name: "SystemPackage", package: "swift-system"), "SandboxCore",
                "SandboxTesting", "sandbox-crash-harness",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SandboxTests",
            dependencies: [.product(name: "SystemPackage", package: "swift-system"), "Sandbox", "SandboxTesting"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SandboxWatchTests",
            dependencies: ["Sandbox", "SandboxCore", "SandboxWatch", "SandboxTesting", "SandboxStore"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SandboxStoreTests",
            dependencies: [
                "CSandboxShims",
                "SandboxStore", "SandboxTesting", "sandbox-store-harness",
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SandboxTransferTests",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
                "Sandbox", "SandboxCore",
                "SandboxTransfer", "SandboxTesting", "SandboxTransferTesting", "SandboxStore",
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SandboxShareTests",
            dependencies: [
                "SandboxStore", .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Hummingbird", package: "hummingbird"), .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
                "Sandbox", "SandboxCore", .product(name: "SystemPackage", package: "swift-system"),
                "SandboxShare", "SandboxTesting", "SandboxTransferTesting",
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The browser tests' Selenium script, run by Python from its source folder.
            exclude: ["Browser/share_page.py", "Properties/PropfindGolden"],
            swiftSettings: swiftSettings
        ),
        // MARK: Background transfers (sandboxd)
        // The app of the background-download tests, SIGKILLed by them.
        .executableTarget(
            name: "sandbox-background-app",
            dependencies: ["Sandbox", "SandboxTransfer"],
            path: "Tests/Harnesses/BackgroundApp",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SandboxDaemonTests",
            dependencies: [
                .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Logging", package: "swift-log"),
                "Sandbox",
                "SandboxTransfer", "SandboxTesting", "SandboxTransferTesting", "sandbox-background-app", "sandboxd",
                "SandboxDaemon", "SandboxStore",
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SandboxCLITests",
            dependencies: [
                .product(name: "SystemPackage", package: "swift-system"), "Sandbox", "SandboxStore",
                "SandboxCLISupport",
                "SandboxTesting", "sandbox-run-probe",
            ],
            swiftSettings: swiftSettings
        ),
        // MARK: Soak (issue 28)
        // The whole system under chaos: shares under a WebDAV client's load, sandboxd's downloads, watches
        // and run programs while restores, updates, purges, restarts, locks and SIGKILLs happen at random.
        .target(
            name: "SandboxSoak", dependencies: ["SandboxTesting", "SandboxTransferTesting"],
            path: "Tests/Support/SandboxSoak",
            swiftSettings: swiftSettings),
        .testTarget(
            name: "SandboxSoakTests", dependencies: ["SandboxSoak", "SandboxTesting", "sandboxd"],
            swiftSettings: swiftSettings),
    ]
)
