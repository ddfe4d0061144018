// swift-tools-version: 6.0
import PackageDescription

/// One set of settings for every Swift target: Swift 6 mode, strict concurrency, explicit `any`.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Sandbox",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "SandboxCore", targets: ["SandboxCore"]),
        .library(name: "Sandbox", targets: ["Sandbox"]),
        .library(name: "SandboxWatch", targets: ["SandboxWatch"]),
        .library(name: "SandboxStore", targets: ["SandboxStore"]),
        .executable(name: "sandbox", targets: ["SandboxCLI"]),
        // Issue 5: download sessions.
        .library(name: "SandboxTransfer", targets: ["SandboxTransfer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // Downloads: the HTTP client, and NIO for the fault-injecting test server.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // C wrappers for what the Glibc module does not expose (openat2, statx, renameat2, xattrs, …).
        .target(name: "CSandboxShims"),

        // Paths, confinement, file and folder operations, metadata, volume values, the error type.
        .target(
            name: "SandboxCore",
            dependencies: [
                "CSandboxShims",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: swiftSettings
        ),

        // The device home, containers and their policies, search paths, lifecycle.
        .target(
            name: "Sandbox",
            dependencies: [
                "SandboxCore",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),

        // The folder monitor (inotify) and Inbox processing.
        .target(name: "SandboxWatch", dependencies: ["Sandbox", "CSandboxShims"], swiftSettings: swiftSettings),

        // Property lists, versioned archives, preferences, the keychain and SQLite databases.
        .target(
            name: "SandboxStore",
            dependencies: [
                "Sandbox",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ],
            swiftSettings: swiftSettings
        ),

        // The command-line tool: parsing and printing only.
        .executableTarget(
            name: "SandboxCLI",
            dependencies: [
                "Sandbox",
                "SandboxWatch",
                "SandboxStore",
                "SandboxTransfer",
                .product(name: "SystemPackage", package: "swift-system"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),

        // Timing helpers the benchmarks share (spawning peers, medians). Not a product.
        .target(name: "BenchmarkSupport", path: "Benchmarks/BenchmarkSupport", swiftSettings: swiftSettings),

        // Measures the core against the system tools (du, find, rm, cp). Not run by CI.
        .executableTarget(
            name: "sandbox-benchmark",
            dependencies: ["SandboxCore", "BenchmarkSupport"],
            path: "Benchmarks/sandbox-benchmark",
            swiftSettings: swiftSettings
        ),

        // Measures the I/O engine against dd, Foundation and fio (issue 3). Not run by CI.
        .executableTarget(
            name: "sandbox-io-benchmark",
            dependencies: ["SandboxCore"],
            path: "Benchmarks/sandbox-io-benchmark",
            swiftSettings: swiftSettings
        ),

        // Measures SandboxWatch against the goals of issue 6 and against inotifywait. Not run by CI.
        .executableTarget(
            name: "sandbox-watch-benchmark",
            dependencies: ["SandboxWatch", "BenchmarkSupport"],
            path: "Benchmarks/sandbox-watch-benchmark",
            swiftSettings: swiftSettings
        ),

        // Measures bundle signing and verification against sha256sum. Not run by CI.
        .executableTarget(
            name: "sandbox-bundle-benchmark",
            dependencies: ["Sandbox", "BenchmarkSupport"],
            path: "Benchmarks/sandbox-bundle-benchmark",
            swiftSettings: swiftSettings
        ),

        // A process the crash-safety tests start and kill with SIGKILL mid-write.
        .executableTarget(
            name: "sandbox-crash-harness",
            dependencies: ["SandboxCore"],
            path: "Tests/Harnesses/CrashHarness",
            swiftSettings: swiftSettings
        ),

        // Issue 5 — downloads: the session (on async-http-client), its test servers (nginx and a
        // fault-injecting NIO server), its tests and its benchmark against curl and aria2c.
        .target(
            name: "SandboxTransfer",
            dependencies: [
                "Sandbox",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: swiftSettings
        ),
        .target(
            name: "SandboxTransferTesting",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            path: "Tests/Support/SandboxTransferTesting",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SandboxTransferTests",
            dependencies: ["SandboxTransfer", "SandboxTransferTesting", "SandboxCLI"],
            swiftSettings: swiftSettings
        ),
        // Not run by CI.
        .executableTarget(
            name: "sandbox-transfer-benchmark",
            dependencies: ["SandboxTransfer", "SandboxTransferTesting"],
            path: "Benchmarks/sandbox-transfer-benchmark",
            swiftSettings: swiftSettings
        ),

        .testTarget(
            name: "SandboxCoreTests",
            dependencies: ["SandboxCore", "sandbox-crash-harness"],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "SandboxWatchTests", dependencies: ["SandboxWatch", "SandboxCLI"], swiftSettings: swiftSettings),
        .testTarget(name: "SandboxTests", dependencies: ["Sandbox"], swiftSettings: swiftSettings),
        // Measures SandboxStore against Foundation's UserDefaults and PropertyListSerialization. Not run by CI.
        .executableTarget(
            name: "sandbox-store-benchmark",
            dependencies: ["SandboxStore"],
            path: "Benchmarks/sandbox-store-benchmark",
            swiftSettings: swiftSettings
        ),

        // A process the preferences tests start several of at once, each writing its own keys.
        .executableTarget(
            name: "sandbox-store-harness",
            dependencies: ["SandboxStore"],
            path: "Tests/Harnesses/StoreHarness",
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "SandboxStoreTests",
            dependencies: ["SandboxStore", "sandbox-store-harness", "SandboxCLI", .product(name: "GRDB", package: "GRDB.swift")],
            swiftSettings: swiftSettings
        ),

        .testTarget(
            name: "SandboxCLITests",
            dependencies: ["SandboxCLI", "Sandbox"],
            swiftSettings: swiftSettings
        ),
    ]
)
