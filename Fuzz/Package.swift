// swift-tools-version: 6.0
import PackageDescription

/// libFuzzer targets for every parser of outside input (issue 17). A package of its own, so the
/// main package and its users never build fuzz code; run it with `scripts/fuzz` (FUZZING.md).
///
/// One executable, `sandbox-fuzz`, holds every target; `SANDBOX_FUZZ_TARGET` picks one per run.
/// SwiftPM links its own `main` into every executable, so `main.swift` starts libFuzzer's driver
/// (`LLVMFuzzerRunDriver`, declared by `CLibFuzzer`), and the executable links with
/// `-sanitize=fuzzer,address`. Coverage of the library itself comes from `scripts/fuzz`, which
/// passes the same flag to every Swift module with `-Xswiftc`.
let package = Package(
    name: "SandboxFuzz",
    products: [
        .executable(name: "sandbox-fuzz", targets: ["SandboxFuzz"])
    ],
    dependencies: [
        .package(name: "Sandbox", path: ".."),
        // SymmetricKey, for the ios-keybag target's fixed password key (already in the graph).
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
    ],
    targets: [
        .target(name: "CLibFuzzer"),
        .executableTarget(
            name: "SandboxFuzz",
            dependencies: [
                "CLibFuzzer",
                .product(name: "Sandbox", package: "Sandbox"),
                .product(name: "SandboxStore", package: "Sandbox"),
                .product(name: "SandboxTransfer", package: "Sandbox"),
                // The encrypted iOS backup's keybag (ios-keybag).
                .product(name: "SandboxBackup", package: "Sandbox"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: [
                .enableUpcomingFeature("ExistentialAny"),
                .enableUpcomingFeature("MemberImportVisibility"),
                .unsafeFlags(["-sanitize=fuzzer,address"]),
            ],
            linkerSettings: [.unsafeFlags(["-sanitize=fuzzer,address"])]
        ),
    ]
)
