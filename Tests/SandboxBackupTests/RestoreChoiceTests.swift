import Foundation
import SandboxCore
import Testing

@testable import SandboxBackup

/// Which snapshot `sandbox restore APP` takes when none is named (issue 30: a fleet backs up into
/// one repository, and the repository's latest snapshot is often another device's).
@Suite struct RestoreChoiceTests {
    static let app = "com.example.notes"
    static let phone = BackupDevice(id: "phone-key", hostname: "phone", home: "/home/a")

    static func snapshot(
        _ id: String, minute: Int, device: String?, host: String = "phone", home: String = "/home/a",
        apps: [String] = [app]
    ) -> Snapshot {
        Snapshot(
            id: id,
            record: SnapshotRecord(
                time: Date(timeIntervalSince1970: 1_800_000_000 + Double(minute) * 60), hostname: host,
                device: device, home: home,
                apps: apps.map { AppSnapshot(app: $0, tree: [], manifest: [], keychain: nil, files: 0, bytes: 0) },
                parent: nil))
    }

    static func latest(_ snapshots: [Snapshot], for device: BackupDevice = phone) throws(SandboxError) -> String {
        try RestoreChoice.latest(of: app, in: snapshots, for: device, location: "/repo").id
    }

    @Test func thisDevicesLatestThatHoldsTheAppWinsOverNewerOnes() throws {
        let snapshots = [
            Self.snapshot("own-old", minute: 0, device: "phone-key"),
            Self.snapshot("own", minute: 1, device: "phone-key"),
            Self.snapshot("tablet", minute: 2, device: "tablet-key", host: "tablet"),
            Self.snapshot("own-other-app", minute: 3, device: "phone-key", apps: ["com.example.mail"]),
        ]
        #expect(try Self.latest(snapshots) == "own")
    }

    /// A snapshot taken before the device had a key is its own by host name and home; the same
    /// host with another home is another device.
    @Test func aKeylessSnapshotIsThisDevicesByHostAndHome() throws {
        let snapshots = [
            Self.snapshot("keyless", minute: 0, device: nil),
            Self.snapshot("other-home", minute: 1, device: nil, home: "/home/b"),
        ]
        #expect(try Self.latest(snapshots) == "keyless")
        #expect(throws: SandboxError.self) {
            _ = try Self.latest([Self.snapshot("keyed-other", minute: 0, device: "other-key")] + snapshots.suffix(1))
        }
    }

    /// A new device (no snapshot of its own) takes the latest of the one device that backed the
    /// app up; with two such devices nothing is guessed.
    @Test func aNewDeviceTakesTheOneOtherDevicesLatestAndRefusesToGuessBetweenTwo() throws {
        let newPhone = BackupDevice(id: "new-key", hostname: "new", home: "/home/a")
        let old = [
            Self.snapshot("old-1", minute: 0, device: "phone-key"),
            Self.snapshot("old-2", minute: 1, device: "phone-key"),
        ]
        #expect(try Self.latest(old, for: newPhone) == "old-2")
        let withTablet = old + [Self.snapshot("tablet", minute: 2, device: "tablet-key", host: "tablet")]
        let error = #expect(throws: SandboxError.self) { try Self.latest(withTablet, for: newPhone) }
        #expect(error?.code == .invalidArgument)
        #expect(error?.message.contains("2 devices") == true, "\(String(describing: error))")
        #expect(error?.message.contains("tablet") == true && error?.message.contains("--snapshot") == true)
    }

    @Test func noSnapshotOfTheAppIsNotFound() {
        let error = #expect(throws: SandboxError.self) {
            try Self.latest([Self.snapshot("mail", minute: 0, device: "phone-key", apps: ["com.example.mail"])])
        }
        #expect(error?.code == .notFound)
        #expect(error?.message.contains("com.example.notes") == true)
        #expect(throws: SandboxError.self) { try Self.latest([]) }
    }
}
