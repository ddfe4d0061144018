import Foundation
import Sandbox
import SandboxCore

/// The device a backup is taken on, as snapshot records name it: its device id (from its
/// keychain's device key), or — for a snapshot taken before it had one — its host name and home.
package struct BackupDevice: Sendable, Equatable {
    /// The device id; `nil` while the home has no device key (no keychain ever written).
    package var id: String?
    package var hostname: String
    /// The home's location.
    package var home: String

    package init(id: String?, hostname: String, home: String) {
        self.id = id
        self.hostname = hostname
        self.home = home
    }

    /// The device `home` is on.
    ///
    /// - Throws: the errors of reading its device key.
    package static func of(_ home: SandboxHome) throws(SandboxError) -> BackupDevice {
        BackupDevice(
            id: try DeviceIdentity.id(of: home), hostname: ProcessInfo.processInfo.hostName, home: home.location)
    }

    /// Whether `record` was taken on this device.
    package func took(_ record: SnapshotRecord) -> Bool {
        if let id, record.device == id { return true }
        return record.device == nil && record.hostname == hostname && record.home == home
    }

    /// What tells the devices of a repository apart: the device id, else host name and home.
    package static func key(of record: SnapshotRecord) -> String {
        record.device ?? "\(record.hostname):\(record.home)"
    }
}

/// Which snapshot `sandbox restore APP` takes when none is named: the latest that holds the app
/// and was taken on this device; on a device that has none (a new phone restored from the old
/// one's backup), the latest of the one device that backed the app up. With several such devices
/// nothing is guessed: the restore is refused, naming them.
package enum RestoreChoice {
    /// The latest snapshot of `app` among `snapshots` (oldest first) for `device`.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when no snapshot holds `app`;
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` when this device has none and several
    ///   others have (the message names them and the snapshot to give).
    package static func latest(
        of app: String, in snapshots: [Snapshot], for device: BackupDevice, location: String
    ) throws(SandboxError) -> Snapshot {
        let holding = snapshots.filter { snapshot in snapshot.record.apps.contains { $0.app == app } }
        guard let newest = holding.last else {
            throw SandboxError(
                .notFound,
                "No snapshot in '\(location)' holds \(app). List the snapshots (sandbox snapshots \(location)) to see which apps each holds."
            )
        }
        if let own = holding.last(where: { device.took($0.record) }) { return own }
        var latestByDevice: [String: Snapshot] = [:]
        for snapshot in holding { latestByDevice[BackupDevice.key(of: snapshot.record)] = snapshot }
        guard latestByDevice.count == 1 else {
            let devices = latestByDevice.values.sorted { ($0.record.time, $0.id) > ($1.record.time, $1.id) }
                .map { "\($0.record.hostname) (\($0.record.home), latest \($0.shortID))" }
            throw SandboxError(
                .invalidArgument,
                "\(latestByDevice.count) devices backed up \(app) into '\(location)', none of them this one: \(devices.joined(separator: "; ")). Name the snapshot to restore with --snapshot."
            )
        }
        return newest
    }
}

extension Repository {
    /// The snapshot to restore `app` from onto `home` when none is named: this device's latest
    /// that holds the app, else the latest of the one device that backed it up (a new device
    /// restored from another's backup); with several such devices, none is guessed.
    ///
    /// - Throws: ``/SandboxCore/SandboxError/Code/notFound`` when no snapshot holds `app`;
    ///   ``/SandboxCore/SandboxError/Code/invalidArgument`` when several other devices backed it up
    ///   and this one did not; the errors of listing the snapshots and of reading `home`'s device
    ///   key.
    public func latestSnapshot(of app: AppIdentifier, for home: SandboxHome) async throws(SandboxError) -> Snapshot {
        try await OwnedThread.run(name: "sandbox-repository") { [self] () throws(SandboxError) in
            try RestoreChoice.latest(
                of: app.rawValue, in: try snapshots(), for: try BackupDevice.of(home), location: storage.location)
        }
    }
}
