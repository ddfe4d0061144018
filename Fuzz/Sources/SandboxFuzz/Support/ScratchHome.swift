import Foundation
import Sandbox

/// A throw-away sandbox home with one app, for the targets whose input is a file (preferences,
/// keychain, checkpoints): each input is written to the file's place, then read through the
/// public API, exactly as the app would on its next launch.
///
/// It lives in `$SANDBOX_FUZZ_SCRATCH` (which `scripts/fuzz` makes and removes), else in a new
/// folder under the temporary directory. Its device key is fixed, so that keychain seeds made by
/// one run open in every other.
struct ScratchHome: Sendable {
    static let app = fixedApp
    let home: SandboxHome
    let container: Container

    /// The one scratch home of this process, made on first use.
    static let shared: ScratchHome = make()

    /// The fixed device key: 32 bytes, `00 01 02 … 1f`.
    static let deviceKey = (0..<32).map { UInt8($0) }
    /// Where SandboxStore keeps the device key (`DeviceKey.path`, internal to it).
    static let deviceKeyPath = ContainerPath(constant: "Device/device.key")

    private static let fixedApp: AppIdentifier = {
        do {
            return try AppIdentifier("com.example.fuzz")
        } catch {
            fatalError("sandbox-fuzz: \(error)")
        }
    }()

    private static func make() -> ScratchHome {
        let environment = ProcessInfo.processInfo.environment
        let parent = environment["SANDBOX_FUZZ_SCRATCH"].flatMap { $0.isEmpty ? nil : $0 } ?? NSTemporaryDirectory()
        let location = parent + "/sandbox-fuzz-\(getpid())"
        do {
            let home = try SandboxHome(location: location)
            try home.root.writeContents(deviceKey, to: deviceKeyPath, options: [.atomic])
            let container = try home.createContainer(for: app)
            return ScratchHome(home: home, container: container)
        } catch {
            fatalError("sandbox-fuzz: cannot make the scratch home '\(location)': \(error)")
        }
    }

    /// Puts `bytes` at `path` (relative to `root`), replacing what was there and making the
    /// folders on the way the first time.
    func place(_ bytes: [UInt8], at path: ContainerPath, in root: ConfinedRoot) {
        do throws(SandboxError) {
            do {
                try root.writeContents(bytes, to: path, options: [.atomic])
            } catch  where error.code == .notFound {
                try root.createDirectory(at: path.parent, withIntermediateDirectories: true)
                try root.writeContents(bytes, to: path, options: [.atomic])
            }
        } catch {
            fatalError("sandbox-fuzz: cannot write the input to '\(path)': \(error)")
        }
    }

    /// The bytes at `path`, to check that a refused file was left as it was.
    func contents(of path: ContainerPath, in root: ConfinedRoot) -> [UInt8] {
        do {
            return try root.readContents(of: path)
        } catch {
            fatalError("sandbox-fuzz: cannot read back '\(path)': \(error)")
        }
    }
}
