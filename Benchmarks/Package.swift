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

// Every benchmark reads its options with swift-argument-parser (`--help` lists them).
let argumentParser: Target.Dependency = .product(name: "ArgumentParser", package: "swift-argument-parser")

let package = Package(
    name: "SandboxBenchmarks",
    dependencies: [
        .package(name: "Sandbox", path: ".."),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
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
        // MARK: Backup and restore against restic
        .executableTarget(
            name: "sandbox-backup-benchmark",
            dependencies: [argumentParser, .product(name: "SandboxBackup", package: "Sandbox"), "BenchmarkSupport"],
            path: "sandbox-backup-benchmark",
            swiftSettings: swiftSettings
        ),
    ]
)
