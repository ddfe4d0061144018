// swift-tools-version: 6.0
import PackageDescription

// The benchmarks: each runs ours against the peer (cp, du, rm, dd, fio, curl, aria2c, Foundation,
// inotifywait, sha256sum) in the same run and prints the ratio. Their own package, so that users
// of the library never resolve or build them. Run from the repository root, e.g.
//   swift run --package-path Benchmarks -c release sandbox-io-benchmark --runs 5

let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// Linked as the root package's `sandbox` is (its `quickStart` settings): the start-up floors.
let quickStart = (
    swift: [SwiftSetting.unsafeFlags(["-static-stdlib"])],
    linker: [
        LinkerSetting.unsafeFlags([
            "-static-stdlib", "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker",
            "--no-export-dynamic",
        ])
    ]
)

// Every benchmark reads its options with swift-argument-parser (`--help` lists them).
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")

let package = Package(
    name: "SandboxBenchmarks",
    dependencies: [
        .package(name: "Sandbox", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The floor under the small downloads: the session's HTTP client alone.
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        // Timing helpers the benchmarks share (spawning peers, medians).
        .target(name: "BenchmarkSupport", path: "BenchmarkSupport", swiftSettings: swiftSettings),

        // The core against du, find, rm and cp.
        .executableTarget(
            name: "sandbox-benchmark",
            dependencies: [argumentParser, .product(name: "SandboxCore", package: "Sandbox"), "BenchmarkSupport"],
            path: "sandbox-benchmark",
            swiftSettings: swiftSettings
        ),
        // The I/O engine against dd, Foundation and fio.
        .executableTarget(
            name: "sandbox-io-benchmark",
            dependencies: [argumentParser, .product(name: "SandboxCore", package: "Sandbox")],
            path: "sandbox-io-benchmark",
            swiftSettings: swiftSettings
        ),
        // The folder monitor against inotifywait.
        .executableTarget(
            name: "sandbox-watch-benchmark",
            dependencies: [argumentParser, .product(name: "SandboxWatch", package: "Sandbox"), "BenchmarkSupport"],
            path: "sandbox-watch-benchmark",
            swiftSettings: swiftSettings
        ),
        // Bundle signing and verification against sha256sum.
        .executableTarget(
            name: "sandbox-bundle-benchmark",
            dependencies: [argumentParser, .product(name: "Sandbox", package: "Sandbox"), "BenchmarkSupport"],
            path: "sandbox-bundle-benchmark",
            swiftSettings: swiftSettings
        ),
        // The floors under `sandbox list`'s start-up, timed by sandbox-bundle-benchmark: a Swift
        // program listing the containers' folder, alone and behind swift-argument-parser.
        .target(
            name: "StartupFloorListing", path: "StartupFloorListing", swiftSettings: swiftSettings + quickStart.swift
        ),
        .executableTarget(
            name: "startup-floor", dependencies: ["StartupFloorListing"], path: "startup-floor",
            swiftSettings: swiftSettings + quickStart.swift, linkerSettings: quickStart.linker
        ),
        .executableTarget(
            name: "startup-floor-argument-parser", dependencies: [argumentParser, "StartupFloorListing"],
            path: "startup-floor-argument-parser", swiftSettings: swiftSettings + quickStart.swift,
            linkerSettings: quickStart.linker
        ),
        // Property lists and preferences against Foundation.
        .executableTarget(
            name: "sandbox-store-benchmark",
            dependencies: [argumentParser, .product(name: "SandboxStore", package: "Sandbox")],
            path: "sandbox-store-benchmark",
            swiftSettings: swiftSettings
        ),
        // Downloads against curl and aria2c, from nginx.
        .executableTarget(
            name: "sandbox-transfer-benchmark",
            dependencies: [
                argumentParser,
                .product(name: "SandboxTransfer", package: "Sandbox"),
                .product(name: "SandboxTransferTesting", package: "Sandbox"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "sandbox-transfer-benchmark",
            swiftSettings: swiftSettings
        ),
        // Background downloads through sandboxd against the foreground session, curl and aria2c.
        .executableTarget(
            name: "sandbox-background-benchmark",
            dependencies: [
                argumentParser, "BenchmarkSupport",
                .product(name: "Sandbox", package: "Sandbox"),
                .product(name: "SandboxTransfer", package: "Sandbox"),
                .product(name: "SandboxTransferTesting", package: "Sandbox"),
            ],
            path: "sandbox-background-benchmark",
            swiftSettings: swiftSettings
        ),
        // The sharing server (`sandbox share`, run as a process) against nginx's WebDAV, with curl and wrk.
        .executableTarget(
            name: "sandbox-share-benchmark",
            dependencies: [
                argumentParser,
                .product(name: "Sandbox", package: "Sandbox"),
                .product(name: "SandboxTransferTesting", package: "Sandbox"),
                "BenchmarkSupport",
            ],
            path: "sandbox-share-benchmark",
            swiftSettings: swiftSettings
        ),
        // `sandbox ls --recursive` against find -printf (issue 31): time and peak memory.
        .executableTarget(
            name: "sandbox-ls-benchmark",
            dependencies: [argumentParser, .product(name: "Sandbox", package: "Sandbox"), "BenchmarkSupport"],
            path: "sandbox-ls-benchmark",
            swiftSettings: swiftSettings
        ),
        // MARK: Backup and restore against restic
        .executableTarget(
            name: "sandbox-backup-benchmark",
            dependencies: [argumentParser, .product(name: "SandboxBackup", package: "Sandbox"), "BenchmarkSupport"],
            path: "sandbox-backup-benchmark",
            swiftSettings: swiftSettings
        ),
        // The whole system under chaos for N minutes (issue 28): the harness of SandboxSoakTests.
        .executableTarget(
            name: "sandbox-soak-benchmark",
            dependencies: [argumentParser, .product(name: "SandboxSoak", package: "Sandbox")],
            path: "sandbox-soak-benchmark",
            swiftSettings: swiftSettings
        ),
    ]
)
